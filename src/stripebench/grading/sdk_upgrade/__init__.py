"""What the four SDK-upgrade graders share (sdk-upgrade-python, -node, -java, -go): the
test data they make (`scenario`), the JSON each endpoint must answer computed from the
current API (`contracts`), and the grader's own copies of the services behind recording
proxies (`service_copies`). The services answer the same JSON in every language."""
