package webscan

import (
	"strings"
	"testing"
)

// TestExposureMatchers checks every rule against a real-looking artefact
// and against the soft-404 shapes that must not match.
func TestExposureMatchers(t *testing.T) {
	positives := map[string]struct{ body, ct string }{
		"git_config":           {gitConfig, "text/plain"},
		"git_head":             {"ref: refs/heads/main\n", "text/plain"},
		"env_file":             {envFile, "application/octet-stream"},
		"svn_entries":          {"12\n\ndir\n1234\nhttps://svn.example.com/repo\n", "text/plain"},
		"svn_wc_db":            {"SQLite format 3\x00\x10\x00", "application/octet-stream"},
		"ds_store":             {"\x00\x00\x00\x01Bud1\x00", "application/octet-stream"},
		"backup_archive":       {"PK\x03\x04\x14\x00", "application/zip"},
		"sql_dump":             {"-- MySQL dump 10.13\nCREATE TABLE `users` (id int);\nINSERT INTO `users` VALUES (1);\n", "application/sql"},
		"phpinfo":              {"<html><title>phpinfo()</title><h1>PHP Version 8.1.2</h1><h2>PHP License</h2>", "text/html"},
		"server_status":        {"<h1>Apache Server Status for x</h1><dt>Server Version: Apache/2.4</dt>", "text/html"},
		"spring_actuator_env":  {`{"activeProfiles":["prod"],"propertySources":[{"name":"server.ports"}]}`, "application/json"},
		"spring_heapdump":      {"JAVA PROFILE 1.0.2\x00", "application/octet-stream"},
		"go_pprof":             {"<html><body>/debug/pprof/<br>Types of profiles available:<table><tr><td>goroutine</td></tr>", "text/html"},
		"private_key":          {"-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", "application/x-pem-file"},
		"aws_credentials":      {"[default]\naws_access_key_id = AKIAEXAMPLE\n", "text/plain"},
		"docker_compose":       {"version: '3'\nservices:\n  db:\n    image: postgres:16\n", "text/yaml"},
		"php_config_backup":    {"<?php\ndefine('DB_PASSWORD', 'x');\n", "text/plain"},
		"editor_swap":          {"b0VIM 8.2\x00\x00", "application/octet-stream"},
		"htpasswd":             {"admin:$apr1$abc$def\nbob:$2y$05$xyz\n", "text/plain"},
		"npmrc":                {"//registry.npmjs.org/:_authToken=npm_abcdef\n", "text/plain"},
		"elmah":                {"<html><title>Error log for /LM/W3SVC</title><h1>Error Log for x</h1>Powered by ELMAH", "text/html"},
		"sftp_config":          {`{"name":"prod","host":"10.0.0.1","username":"deploy","password":"pw"}`, "application/json"},
		"crossdomain_wildcard": {`<?xml version="1.0"?><cross-domain-policy><allow-access-from domain="*"/></cross-domain-policy>`, "text/xml"},
		"dockerfile":           {"FROM golang:1.26\nRUN go build ./...\n", "text/plain"},
	}
	negatives := []struct{ body, ct string }{
		{"<!doctype html><html><body>Not found</body></html>", "text/html"},
		{"<html><body><pre>[core]\nrepositoryformatversion = 0\nAPP_KEY=1\nDB_HOST=2\n-----BEGIN RSA PRIVATE KEY-----</pre></body></html>", "text/plain"},
		{"", "text/plain"},
		{"Not Found", "text/plain"},
		{`{"error":"not found"}`, "application/json"},
	}
	seen := map[string]bool{}
	for _, r := range exposureRules {
		seen[r.Kind] = true
		p, ok := positives[r.Kind]
		if !ok {
			t.Errorf("no positive sample for %s", r.Kind)
			continue
		}
		ev, ok := r.Match([]byte(p.body), p.ct)
		if !ok {
			t.Errorf("%s: positive sample not matched", r.Kind)
		}
		if ev == "" && ok {
			t.Errorf("%s: empty evidence", r.Kind)
		}
		for _, n := range negatives {
			if _, ok := r.Match([]byte(n.body), n.ct); ok {
				t.Errorf("%s matched a soft-404 shape %q", r.Kind, n.body)
			}
		}
		if r.Recommendation == "" || r.Title == "" || r.Severity.Rank() < 0 {
			t.Errorf("%s: incomplete rule", r.Kind)
		}
	}
	for k := range positives {
		if !seen[k] {
			t.Errorf("sample for unknown kind %s", k)
		}
	}
	if n := len(ExposurePaths()); n < 28 || n > 36 {
		t.Errorf("%d paths, want about 30", n)
	}
}

func TestExposureEvidenceRedacted(t *testing.T) {
	secrets := map[string]struct{ body, secret string }{
		"env_file":          {envFile, "hunter2"},
		"git_config":        {gitConfig, "ghp_s3cretT0kenValue"},
		"aws_credentials":   {"aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n", "AKIAIOSFODNN7EXAMPLE"},
		"npmrc":             {"_authToken=npm_SECRETSECRET\n", "npm_SECRETSECRET"},
		"php_config_backup": {"<?php define('DB_PASSWORD', 'pa55word');", "pa55word"},
		"htpasswd":          {"admin:$apr1$salt$hashhashhash\n", "hashhashhash"},
		"private_key":       {"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIKEYKEYKEY\n", "KEYKEYKEY"},
	}
	for kind, s := range secrets {
		ev, ok := exposureRuleByKind(kind).Match([]byte(s.body), "text/plain")
		if !ok {
			t.Errorf("%s: not matched", kind)
			continue
		}
		if strings.Contains(ev, s.secret) {
			t.Errorf("%s: evidence %q leaks the secret", kind, ev)
		}
	}
}
