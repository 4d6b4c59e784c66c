"""What guards the tool against a user's code and files: plug-in policies called under a
time limit in a black box (`foreign`), and input files read within a size bound
(`inputs`)."""
