// Rules are data, one family per file. Edit the entries directly;
// rules_test.go runs every example and negative example.

package secretscan

// keyRules: private keys (PEM, OpenSSH, PGP, PuTTY, WireGuard) and password hashes.
var keyRules = []*rule{
	{
		ID: "rsa-private-key", Type: "rsa_private_key", Name: "RSA private key (PKCS#1 PEM)",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"-----BEGIN RSA PRIVATE KEY-----"},
		Pattern:          `(?s)-----BEGIN RSA PRIVATE KEY-----(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]+?-----END RSA PRIVATE KEY-----`,
		After:            16500,
		Validate:         validPEM,
		Priority:         1,
		MinLen:           126,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN RSA PRIVATE KEY-----
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
-----END RSA PRIVATE KEY-----`,
			`"private_key": "-----BEGIN RSA PRIVATE KEY-----\n6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf\nkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5\n3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez\nbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm\nXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF\nRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL\npdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2\naG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS\nFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR\nQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq\nGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y\nLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs\nXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m\nn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ\nsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6\nsDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C\nuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49\n365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn\nPYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6\n9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3\n-----END RSA PRIVATE KEY-----\n"`,
		},
		NegativeExamples: []string{
			`-----BEGIN RSA PRIVATE KEY-----
...
-----END RSA PRIVATE KEY-----`,
			`-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA...
-----END RSA PRIVATE KEY-----`,
		},
	},
	{
		ID: "ec-private-key", Type: "ec_private_key", Name: "EC private key (SEC 1 PEM)",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"-----BEGIN EC PRIVATE KEY-----"},
		Pattern:          `(?s)-----BEGIN EC PRIVATE KEY-----(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]+?-----END EC PRIVATE KEY-----`,
		After:            16500,
		Validate:         validPEM,
		Priority:         1,
		MinLen:           124,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN EC PRIVATE KEY-----
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
-----END EC PRIVATE KEY-----`,
			`"private_key": "-----BEGIN EC PRIVATE KEY-----\n6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf\nkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5\n3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez\nbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm\nXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF\nRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL\npdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2\naG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS\nFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR\nQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq\nGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y\nLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs\nXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m\nn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ\nsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6\nsDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C\nuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49\n365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn\nPYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6\n9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3\n-----END EC PRIVATE KEY-----\n"`,
		},
		NegativeExamples: []string{
			`-----BEGIN EC PRIVATE KEY-----
...
-----END EC PRIVATE KEY-----`,
			`-----BEGIN EC PRIVATE KEY-----
MIIEowIBAAKCAQEA...
-----END EC PRIVATE KEY-----`,
		},
	},
	{
		ID: "dsa-private-key", Type: "dsa_private_key", Name: "DSA private key (PEM)",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"-----BEGIN DSA PRIVATE KEY-----"},
		Pattern:          `(?s)-----BEGIN DSA PRIVATE KEY-----(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]+?-----END DSA PRIVATE KEY-----`,
		After:            16500,
		Validate:         validPEM,
		Priority:         1,
		MinLen:           126,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN DSA PRIVATE KEY-----
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
-----END DSA PRIVATE KEY-----`,
			`"private_key": "-----BEGIN DSA PRIVATE KEY-----\n6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf\nkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5\n3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez\nbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm\nXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF\nRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL\npdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2\naG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS\nFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR\nQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq\nGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y\nLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs\nXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m\nn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ\nsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6\nsDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C\nuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49\n365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn\nPYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6\n9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3\n-----END DSA PRIVATE KEY-----\n"`,
		},
		NegativeExamples: []string{
			`-----BEGIN DSA PRIVATE KEY-----
...
-----END DSA PRIVATE KEY-----`,
			`-----BEGIN DSA PRIVATE KEY-----
MIIEowIBAAKCAQEA...
-----END DSA PRIVATE KEY-----`,
		},
	},
	{
		ID: "openssh-private-key", Type: "openssh_private_key", Name: "OpenSSH private key",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"-----BEGIN OPENSSH PRIVATE KEY-----"},
		Pattern:          `(?s)-----BEGIN OPENSSH PRIVATE KEY-----(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]+?-----END OPENSSH PRIVATE KEY-----`,
		After:            16500,
		Validate:         validPEM,
		Priority:         1,
		MinLen:           134,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN OPENSSH PRIVATE KEY-----
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
-----END OPENSSH PRIVATE KEY-----`,
			`"private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\n6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf\nkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5\n3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez\nbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm\nXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF\nRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL\npdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2\naG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS\nFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR\nQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq\nGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y\nLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs\nXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m\nn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ\nsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6\nsDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C\nuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49\n365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn\nPYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6\n9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3\n-----END OPENSSH PRIVATE KEY-----\n"`,
		},
		NegativeExamples: []string{
			`-----BEGIN OPENSSH PRIVATE KEY-----
...
-----END OPENSSH PRIVATE KEY-----`,
			`-----BEGIN OPENSSH PRIVATE KEY-----
MIIEowIBAAKCAQEA...
-----END OPENSSH PRIVATE KEY-----`,
		},
	},
	{
		ID: "pkcs8-private-key", Type: "pkcs8_private_key", Name: "PKCS#8 private key (PEM)",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"-----BEGIN PRIVATE KEY-----"},
		Pattern:          `(?s)-----BEGIN PRIVATE KEY-----(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]+?-----END PRIVATE KEY-----`,
		After:            16500,
		Validate:         validPEM,
		Priority:         1,
		MinLen:           118,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN PRIVATE KEY-----
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
-----END PRIVATE KEY-----`,
			`"private_key": "-----BEGIN PRIVATE KEY-----\n6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf\nkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5\n3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez\nbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm\nXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF\nRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL\npdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2\naG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS\nFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR\nQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq\nGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y\nLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs\nXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m\nn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ\nsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6\nsDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C\nuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49\n365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn\nPYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6\n9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3\n-----END PRIVATE KEY-----\n"`,
		},
		NegativeExamples: []string{
			`-----BEGIN PRIVATE KEY-----
...
-----END PRIVATE KEY-----`,
			`-----BEGIN PRIVATE KEY-----
MIIEowIBAAKCAQEA...
-----END PRIVATE KEY-----`,
		},
	},
	{
		ID: "pkcs8-encrypted-private-key", Type: "encrypted_private_key", Name: "Encrypted PKCS#8 private key (PEM)",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"-----BEGIN ENCRYPTED PRIVATE KEY-----"},
		Pattern:          `(?s)-----BEGIN ENCRYPTED PRIVATE KEY-----(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]+?-----END ENCRYPTED PRIVATE KEY-----`,
		After:            16500,
		Validate:         validPEM,
		Priority:         1,
		MinLen:           138,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN ENCRYPTED PRIVATE KEY-----
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
-----END ENCRYPTED PRIVATE KEY-----`,
			`"private_key": "-----BEGIN ENCRYPTED PRIVATE KEY-----\n6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf\nkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5\n3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez\nbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm\nXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF\nRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL\npdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2\naG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS\nFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR\nQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq\nGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y\nLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs\nXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m\nn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ\nsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6\nsDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C\nuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49\n365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn\nPYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6\n9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3\n-----END ENCRYPTED PRIVATE KEY-----\n"`,
		},
		NegativeExamples: []string{
			`-----BEGIN ENCRYPTED PRIVATE KEY-----
...
-----END ENCRYPTED PRIVATE KEY-----`,
			`-----BEGIN ENCRYPTED PRIVATE KEY-----
MIIEowIBAAKCAQEA...
-----END ENCRYPTED PRIVATE KEY-----`,
		},
	},
	{
		ID: "pgp-private-key", Type: "pgp_private_key_block", Name: "PGP / GPG private key block",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"-----BEGIN PGP PRIVATE KEY BLOCK-----"},
		Pattern:          `(?s)-----BEGIN PGP PRIVATE KEY BLOCK-----(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]+?-----END PGP PRIVATE KEY BLOCK-----`,
		After:            16500,
		Validate:         validPEM,
		Priority:         1,
		MinLen:           138,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN PGP PRIVATE KEY BLOCK-----
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
-----END PGP PRIVATE KEY BLOCK-----`,
			`"private_key": "-----BEGIN PGP PRIVATE KEY BLOCK-----\n6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf\nkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5\n3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez\nbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm\nXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF\nRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL\npdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2\naG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS\nFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR\nQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq\nGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y\nLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs\nXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m\nn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ\nsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6\nsDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C\nuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49\n365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn\nPYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6\n9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3\n-----END PGP PRIVATE KEY BLOCK-----\n"`,
		},
		NegativeExamples: []string{
			`-----BEGIN PGP PRIVATE KEY BLOCK-----
...
-----END PGP PRIVATE KEY BLOCK-----`,
			`-----BEGIN PGP PRIVATE KEY BLOCK-----
MIIEowIBAAKCAQEA...
-----END PGP PRIVATE KEY BLOCK-----`,
		},
	},
	{
		ID: "ssh2-encrypted-private-key", Type: "ssh2_private_key", Name: "SSH2 (RFC 4716) encrypted private key",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:         []string{"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"},
		Pattern:          `(?s)---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----.{64,}?---- END SSH2 ENCRYPTED PRIVATE KEY ----`,
		After:            16500,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----
Comment: "rsa-key"
6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVyf
kVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA5
3r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZez
bYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalgm
XCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48qF
RoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8HrL
pdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u2
aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWAS
FVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fcR
QzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffpq
GFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7Y
LYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdjs
XKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13m
n+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmAZ
sBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf6
sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5C
uOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh49
365uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWPOtUPCfDJYpOD9/DRn
PYF886lH2pMUylfKIRBcVz+WCxgmSkOxdR3NjhUYuppxqyADQPhL7MxyS4arzYp6
9hDyGs6BXdGL8vZ+JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA+biPZ9Phz59UzmLt3
---- END SSH2 ENCRYPTED PRIVATE KEY ----`,
		},
	},
	{
		ID: "putty-private-key", Type: "putty_private_key", Name: "PuTTY private key file",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords:   []string{"PuTTY-User-Key-File-"},
		Pattern:    `(?s)PuTTY-User-Key-File-[23]: [\w-]{3,40}\r?\n.{0,}?Private-Lines: \d{1,3}\r?\n(?P<secret>[A-Za-z0-9+/=\r\n]{40,}?)\r?\nPrivate-(?:MAC|Hash): [0-9a-fA-F]{20,}`,
		After:      12000,
		NoBoundary: true,
		Examples: []string{
			`PuTTY-User-Key-File-3: ssh-ed25519
Encryption: none
Comment: eddsa-key-20240101
Public-Lines: 2
ruVx9qDmt9x9LRMpr2/HcIQhxZTSe7JYzNcKotRHkuV9eCiYaYVu+wSEw7u70hUq
fL22
Private-Lines: 1
Rgw6MbbT+65tsYBpQK/gPzAsps5cLDrgIp3N742hVTrH
Private-MAC: 5d2ed1fb96a58cbdff75f6f34e951e5d58be995ffbae57253c2e9f28fd93a7b7
`,
		},
	},
	{
		ID: "wireguard-private-key", Type: "wireguard_private_key", Name: "WireGuard private key",
		Family: "key", Severity: SeverityCritical, Evidence: evKeyword,
		Keywords: []string{"PrivateKey"},
		Pattern:  `PrivateKey\s*=\s*(?P<secret>[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)`,
		After:    70,
		Validate: validBase64Len(32),
		Examples: []string{
			`[Interface]
Address = 10.0.0.2/32
PrivateKey = wx4aYCDs6B5w6JtwPqcyUbNcegdGu/xkGAv2ICeReTE=
`,
		},
	},
	{
		ID: "bcrypt-hash", Type: "password_hash", Name: "bcrypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords:         []string{"$2a$", "$2b$", "$2y$"},
		Pattern:          `(?P<secret>\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53})`,
		Before:           2,
		After:            600,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`$2b$12$T4eBqWUmsEYefXa8/KwLI9VSElbWBTjDq7MajVh76poXgqZbndZBD`,
		},
	},
	{
		ID: "sha512crypt-hash", Type: "password_hash", Name: "SHA-512 crypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords:         []string{"$6$"},
		Pattern:          `(?P<secret>\$6\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{86})`,
		Before:           2,
		After:            600,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`$6$xUvfL6hu$KkGVKjqQxx0LxKXryvbJ7ahSRD29I9JDKiATMlhMTpB53MQISTNwduBtemKu6UhV763pdvYuJKVRvh.wn3qpLc`,
		},
	},
	{
		ID: "sha256crypt-hash", Type: "password_hash", Name: "SHA-256 crypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords:         []string{"$5$"},
		Pattern:          `(?P<secret>\$5\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43})`,
		Before:           2,
		After:            600,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`$5$Qectq3sNjodYr7B8$feRfr3tlX550yannJQLv6mLeBhCXmQQSL9Uu.GDoclB`,
		},
	},
	{
		ID: "md5crypt-hash", Type: "password_hash", Name: "MD5 crypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords:         []string{"$1$"},
		Pattern:          `(?P<secret>\$1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22})`,
		Before:           2,
		After:            600,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`$1$uVEbuQjq$iZOg1TAJ84n79f0BR5R3kM`,
		},
	},
	{
		ID: "scrypt-cisco-hash", Type: "password_hash", Name: "Cisco type 8/9 password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords:         []string{"$8$", "$9$"},
		Pattern:          `(?P<secret>\$[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43})`,
		Before:           2,
		After:            600,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`$8$YMjJexL3GevDCK$BSHv7ihZqB38z40YnRqdxh82XWv2OeSN8RXFaizmz7j`,
		},
	},
	{
		ID: "kerberos-asrep-hash", Type: "kerberos_asrep_hash", Name: "Kerberos AS-REP roastable hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords:         []string{"$krb5asrep$"},
		Pattern:          `(?P<secret>\$krb5asrep\$\d{1,2}\$[^$\s]{1,128}\$[0-9a-f]{64,})`,
		Before:           2,
		After:            600,
		NoBoundary:       true,
		KeepPlaceholders: true,
		Examples: []string{
			`$krb5asrep$23$user@corp.local:ae2a1d34a48e2a8a8182eb3459fec4f2$9ba51b7c8a84ace52f2696cb9cddc022534c202658fadfcda6f0b2dea7902ab7ce394fba9056363bbff704f2351ec149d57735a84553c8aeee7743ecb1283efb1419396ba6ed694dfba4b0dad671bb5ef6e485874976ecbc05712fca4c8a328fe9c49581`,
		},
	},
}
