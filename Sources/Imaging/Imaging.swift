import CVips
