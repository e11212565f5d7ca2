module example.com/newgo

go 1.27.3
