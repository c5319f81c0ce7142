"""One module per subcommand: the use cases the command line dispatches to."""
