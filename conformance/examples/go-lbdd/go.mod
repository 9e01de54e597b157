module example.com/pubsub-lbdd

go 1.21
