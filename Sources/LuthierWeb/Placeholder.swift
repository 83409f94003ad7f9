enum _PlaceholderLuthierWeb {}
