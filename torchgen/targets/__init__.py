"""One module per generated target: a function from the schema model to files."""
