print("gallery-bench")
