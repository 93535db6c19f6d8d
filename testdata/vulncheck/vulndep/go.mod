module example.com/vulndep

go 1.22
