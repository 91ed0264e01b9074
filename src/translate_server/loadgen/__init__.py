"""`translate-server bench run` and `bench quality`: the load generator shipped with the server."""
