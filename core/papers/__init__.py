"""The three papers as a whole: the Claim type, every figure and table with its page, the reproductions' registry, and the Tour's stories."""
