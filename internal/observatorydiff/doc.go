// Package observatorydiff holds the differential test of the website
// scan's header grade against its reference, the MDN HTTP Observatory.
//
// The test serves a table of fixture sites on a loopback address (http on
// port 80, https on 443 with a private CA made by the test), scans each
// with Warden (the scanner of warden scan site, with the command line's
// --allow-private policy and the private CA added to its roots, as
// --ca-file does) and with the Observatory's own scan(), unmodified, run
// by Node.js. It compares the Observatory-equivalent score, grade and
// every per-test modifier (result.reference) with the Observatory's, and
// fails on any difference not listed with its reason in
// docs/microdefend.md's table of deliberate deviations.
//
// It skips unless the Observatory is installed (scripts/install-observatory.sh,
// which .ci/run runs) and ports 80 and 443 can be bound on loopback (root).
// Run it with:
//
//	WARDEN_OBSERVATORY_DIR=$(bash scripts/install-observatory.sh) \
//	    go test -run TestObservatoryParity -v ./internal/observatorydiff/
//
// The package has no code of its own.
package observatorydiff
