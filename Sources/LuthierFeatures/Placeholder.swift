enum _PlaceholderLuthierFeatures {}
