module example.com/missingdep

go 1.26

require example.invalid/nothere v1.0.0
