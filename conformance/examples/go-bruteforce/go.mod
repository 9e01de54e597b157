module example.com/pubsub-bruteforce

go 1.21
