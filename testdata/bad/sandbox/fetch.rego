# A rule that sends each object it reviews to a server: the sandbox refuses
# it as the rules are read, before anything runs.
package fetch

deny contains msg if {
	resp := http.send({"method": "POST", "url": "http://127.0.0.1:9/collect", "body": input})
	msg := sprintf("sent: %d", [resp.status_code])
}
