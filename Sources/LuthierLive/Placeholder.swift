enum _PlaceholderLuthierLive {}
