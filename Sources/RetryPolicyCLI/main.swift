print("retry-policy")
