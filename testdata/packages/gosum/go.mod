module example.com/gosum

go 1.22
