module example.com/go127

go 1.27
