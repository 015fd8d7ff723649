print("tlstrust: under construction")
