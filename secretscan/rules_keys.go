// Code written by hand as data; one family per file.

package secretscan

// keyRules: private keys (PEM, OpenSSH, PGP, PuTTY, WireGuard) and password hashes.
var keyRules = []*rule{
	{
		ID: "rsa-private-key", Type: "rsa_private_key", Name: "RSA private key (PKCS#1 PEM)",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"-----BEGIN RSA PRIVATE KEY-----"},
		Pattern: `(?s)-----BEGIN RSA PRIVATE KEY-----(?P<body>(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]{64,}?)-----END RSA PRIVATE KEY-----`,
		After: 16500,
		Validate: validPEM,
		Priority: 1,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN RSA PRIVATE KEY-----
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
-----END RSA PRIVATE KEY-----`,
			`"private_key": "-----BEGIN RSA PRIVATE KEY-----\nNbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5\njoc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe\nXAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN\naixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs\nw6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy\nfkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA\n53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe\nzbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg\nmXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q\nFRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr\nLpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u\n2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA\nSFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc\nRQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp\nqGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7\nYLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj\nsXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13\nmn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA\nZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf\n6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5\n-----END RSA PRIVATE KEY-----\n"`,
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
		Keywords: []string{"-----BEGIN EC PRIVATE KEY-----"},
		Pattern: `(?s)-----BEGIN EC PRIVATE KEY-----(?P<body>(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]{64,}?)-----END EC PRIVATE KEY-----`,
		After: 16500,
		Validate: validPEM,
		Priority: 1,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN EC PRIVATE KEY-----
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
-----END EC PRIVATE KEY-----`,
			`"private_key": "-----BEGIN EC PRIVATE KEY-----\nNbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5\njoc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe\nXAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN\naixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs\nw6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy\nfkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA\n53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe\nzbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg\nmXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q\nFRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr\nLpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u\n2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA\nSFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc\nRQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp\nqGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7\nYLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj\nsXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13\nmn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA\nZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf\n6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5\n-----END EC PRIVATE KEY-----\n"`,
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
		Keywords: []string{"-----BEGIN DSA PRIVATE KEY-----"},
		Pattern: `(?s)-----BEGIN DSA PRIVATE KEY-----(?P<body>(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]{64,}?)-----END DSA PRIVATE KEY-----`,
		After: 16500,
		Validate: validPEM,
		Priority: 1,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN DSA PRIVATE KEY-----
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
-----END DSA PRIVATE KEY-----`,
			`"private_key": "-----BEGIN DSA PRIVATE KEY-----\nNbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5\njoc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe\nXAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN\naixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs\nw6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy\nfkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA\n53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe\nzbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg\nmXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q\nFRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr\nLpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u\n2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA\nSFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc\nRQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp\nqGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7\nYLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj\nsXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13\nmn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA\nZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf\n6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5\n-----END DSA PRIVATE KEY-----\n"`,
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
		Keywords: []string{"-----BEGIN OPENSSH PRIVATE KEY-----"},
		Pattern: `(?s)-----BEGIN OPENSSH PRIVATE KEY-----(?P<body>(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]{64,}?)-----END OPENSSH PRIVATE KEY-----`,
		After: 16500,
		Validate: validPEM,
		Priority: 1,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN OPENSSH PRIVATE KEY-----
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
-----END OPENSSH PRIVATE KEY-----`,
			`"private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\nNbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5\njoc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe\nXAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN\naixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs\nw6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy\nfkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA\n53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe\nzbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg\nmXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q\nFRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr\nLpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u\n2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA\nSFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc\nRQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp\nqGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7\nYLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj\nsXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13\nmn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA\nZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf\n6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5\n-----END OPENSSH PRIVATE KEY-----\n"`,
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
		Keywords: []string{"-----BEGIN PRIVATE KEY-----"},
		Pattern: `(?s)-----BEGIN PRIVATE KEY-----(?P<body>(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]{64,}?)-----END PRIVATE KEY-----`,
		After: 16500,
		Validate: validPEM,
		Priority: 1,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN PRIVATE KEY-----
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
-----END PRIVATE KEY-----`,
			`"private_key": "-----BEGIN PRIVATE KEY-----\nNbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5\njoc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe\nXAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN\naixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs\nw6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy\nfkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA\n53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe\nzbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg\nmXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q\nFRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr\nLpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u\n2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA\nSFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc\nRQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp\nqGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7\nYLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj\nsXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13\nmn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA\nZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf\n6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5\n-----END PRIVATE KEY-----\n"`,
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
		Keywords: []string{"-----BEGIN ENCRYPTED PRIVATE KEY-----"},
		Pattern: `(?s)-----BEGIN ENCRYPTED PRIVATE KEY-----(?P<body>(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]{64,}?)-----END ENCRYPTED PRIVATE KEY-----`,
		After: 16500,
		Validate: validPEM,
		Priority: 1,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN ENCRYPTED PRIVATE KEY-----
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
-----END ENCRYPTED PRIVATE KEY-----`,
			`"private_key": "-----BEGIN ENCRYPTED PRIVATE KEY-----\nNbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5\njoc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe\nXAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN\naixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs\nw6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy\nfkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA\n53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe\nzbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg\nmXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q\nFRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr\nLpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u\n2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA\nSFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc\nRQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp\nqGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7\nYLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj\nsXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13\nmn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA\nZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf\n6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5\n-----END ENCRYPTED PRIVATE KEY-----\n"`,
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
		Keywords: []string{"-----BEGIN PGP PRIVATE KEY BLOCK-----"},
		Pattern: `(?s)-----BEGIN PGP PRIVATE KEY BLOCK-----(?P<body>(?:[\s"\'\\,]|\\n|\\r)*[A-Za-z0-9+/=:\s"\'\\,()._-]{64,}?)-----END PGP PRIVATE KEY BLOCK-----`,
		After: 16500,
		Validate: validPEM,
		Priority: 1,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`-----BEGIN PGP PRIVATE KEY BLOCK-----
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
-----END PGP PRIVATE KEY BLOCK-----`,
			`"private_key": "-----BEGIN PGP PRIVATE KEY BLOCK-----\nNbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5\njoc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe\nXAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN\naixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs\nw6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy\nfkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA\n53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe\nzbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg\nmXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q\nFRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr\nLpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u\n2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA\nSFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc\nRQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp\nqGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7\nYLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj\nsXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13\nmn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA\nZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf\n6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5\n-----END PGP PRIVATE KEY BLOCK-----\n"`,
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
		Keywords: []string{"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"},
		Pattern: `(?s)---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----.{64,}?---- END SSH2 ENCRYPTED PRIVATE KEY ----`,
		After: 16500,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----
Comment: "rsa-key"
NbbqduPCB0W/LXnlDlruqOJpRsNI8pKPPEESp1+xH+S2I1J813DIu6BKZhRG3Oq5
joc//y8raMAVp1IQnhFze747nauuIR4HMCC9aom7kWzvAja9AkAtHLQAubGtPmqe
XAcaVnnb+3CxKCLlYUiRe/1o9HspT7ubvUyUfIjsLRq6NxlhCZTS+U8+i0SHpfDN
aixr/QrH5O4mY3PyIYogoMCN3m4VDpOsbsOBWWiMehb3eVP/6kWEzKZO38m8aUKs
w6gwK05GmQr+1Pla7uzO1jl08VYAFZIKG4kEl8muv5ZinsXbAQRiN4S+lRR2WWVy
fkVO5+hujvoz6xp/rXLjNUggQqVCg25zA3B+sQz6y0VV4VsoJguW83lfzyieMYGA
53r1i7EBRKGRamIjeHY1GpCe7u795Rm3vRRjPAb01B5FoJJAv+YagpdbP3UhjUZe
zbYaPC56//IFuBadDESLGwGNqpxqhAJWCBXF2MJlelMJ0SJ6KGS9B34qS+BhPalg
mXCdkK2KK5allgs5bimq7en34dTiKqYFfOuPl0BCZui1vlnuo6uzuZDTIMD1p48q
FRoM3S1CWBWnobnhrHefZk5vtFtIzZJ2eUwpbFZlb36UpDl5wCzwRkgvd8omq8Hr
LpdtwYFsF+Kg1Z44DmCLNhxJsnrK4Vu4yKz8KDst7TJmfF5RFMw9uu8Qsyamy+8u
2aG8Dmcv1zNLCMwrD8LyqthsabOzWDaMk+v4TFdFSCiIILQYO1k0uI8UPlSjReWA
SFVpc3inOnSgmAy2I+fqAkjqqSSrhQCM7bwVGqaR+j06sTc1pxCpRgeaH6D12+fc
RQzOuJlQc+OO99F0/ypwnb7hmVu/KefLpktfD7l6WkkqAj1SmjVKzc6F9T0Duffp
qGFSrXnw5jHPUBiScjqLmdSz26lIlVY2N4A+qIanTpMPnkO35USPfMbakMY841G7
YLYl/vU23vpGFYrML47Vr/STZsr7A3qer99DIWylxEQiXnS+VM8t2kewP9+Sutdj
sXKSxBS60XYts6TSKdGAv0pn4IVVsyLjyA1yYwagFuuIlgguU28HtDGtabDXV/13
mn+VPG2DDtUP1UUr5cULCC7fgQScuC/ST+HD9b411dMKtzyltMAXft7Fp/4ajAmA
ZsBOcWffmGRVmtz4A9P0p9o5OgfamUtHN9yvxOiEiZZLmefyfs/v5TsFXs1/4+mf
6sDx29gSB7BQxXmjWF5/FodHrejfg10ysdxy13U6LDVzO5BTfecG08sA0AoMJSl5
---- END SSH2 ENCRYPTED PRIVATE KEY ----`,
		},
	},
	{
		ID: "putty-private-key", Type: "putty_private_key", Name: "PuTTY private key file",
		Family: "key", Severity: SeverityCritical, Evidence: evStructure,
		Keywords: []string{"PuTTY-User-Key-File-"},
		Pattern: `(?s)PuTTY-User-Key-File-[23]: [\w-]{3,40}\r?\n.{0,}?Private-Lines: \d{1,3}\r?\n(?P<secret>[A-Za-z0-9+/=\r\n]{40,}?)\r?\nPrivate-(?:MAC|Hash): [0-9a-fA-F]{20,}`,
		After: 12000,
		NoBoundary: true,
		Examples: []string{
			`PuTTY-User-Key-File-3: ssh-ed25519
Encryption: none
Comment: eddsa-key-20240101
Public-Lines: 2
CuOX49Kch60caPnkUG2yHYMehB1nQI8Qs+tK0VBk9SqE7eAmmYMp+duHzcZg0vh4
9365
Private-Lines: 1
uLv2LTSRWJAIGS6kkiXxHrcRnLaOmqVIS0JUVo9UwIWP
Private-MAC: 6d763a348c632f36c683221b40c57fba546297ff83eac7b6e9605ba78eccedf2
`,
		},
	},
	{
		ID: "wireguard-private-key", Type: "wireguard_private_key", Name: "WireGuard private key",
		Family: "key", Severity: SeverityCritical, Evidence: evKeyword,
		Keywords: []string{"PrivateKey"},
		Pattern: `PrivateKey\s*=\s*(?P<secret>[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=)`,
		After: 70,
		Validate: validBase64Len(32),
		Examples: []string{
			`[Interface]
Address = 10.0.0.2/32
PrivateKey = G8TGNb0zVioP8vSqLN52rXk59u++CUnhavbAmnql4ok=
`,
		},
	},
	{
		ID: "bcrypt-hash", Type: "password_hash", Name: "bcrypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"$2a$", "$2b$", "$2y$"},
		Pattern: `(?P<secret>\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53})`,
		Before: 2,
		After: 600,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`$2b$12$Yp69hDyGs6BXdGL8vZ.JAU5sWT8I04hvz7D2eprG9e4Uc/wHMA.bi`,
		},
	},
	{
		ID: "sha512crypt-hash", Type: "password_hash", Name: "SHA-512 crypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"$6$"},
		Pattern: `(?P<secret>\$6\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{86})`,
		Before: 2,
		After: 600,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`$6$CHn4kpCL$z59UzmLt3ruVx9qDmt9x9LRMpr2/HcIQhxZTSe7JYzNcKotRHkuV9eCiYaYVu.wSEw7u70hUqfL22Rgw6MbbT.`,
		},
	},
	{
		ID: "sha256crypt-hash", Type: "password_hash", Name: "SHA-256 crypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"$5$"},
		Pattern: `(?P<secret>\$5\$(?:rounds=\d{1,9}\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43})`,
		Before: 2,
		After: 600,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`$5$32RRH5PDAlgaVrLk$PzAsps5cLDrgIp3N742hVTrHNq8xr7/jaPgLWnlryyU`,
		},
	},
	{
		ID: "md5crypt-hash", Type: "password_hash", Name: "MD5 crypt password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"$1$"},
		Pattern: `(?P<secret>\$1\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22})`,
		Before: 2,
		After: 600,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`$1$AVCnjUb6$GwbN6vLqNWjudcK//jgvMU`,
		},
	},
	{
		ID: "scrypt-cisco-hash", Type: "password_hash", Name: "Cisco type 8/9 password hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"$8$", "$9$"},
		Pattern: `(?P<secret>\$[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43})`,
		Before: 2,
		After: 600,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`$8$5ZA6O5XyqTnsJa$yBWyrbFeSjSFDmGFuuVPekz3ZoC5GJyOT4eBqWUmsEY`,
		},
	},
	{
		ID: "kerberos-asrep-hash", Type: "kerberos_asrep_hash", Name: "Kerberos AS-REP roastable hash",
		Family: "key", Severity: SeverityLow, Evidence: evStructure,
		Keywords: []string{"$krb5asrep$"},
		Pattern: `(?P<secret>\$krb5asrep\$\d{1,2}\$[^$\s]{1,128}\$[0-9a-f]{64,})`,
		Before: 2,
		After: 600,
		NoBoundary: true,
		KeepPlaceholders: true,
		Examples: []string{
			`$krb5asrep$23$user@corp.local:aa892f5e542773b9827b3d159b7a11cc$8ad89c9823fa35b475bd6ee05e58dfe9419a7630242435b275ba57c210564775e9e2dac5e17a7110c9e8e4576eafec0dc59d1b354aa6ad0db8110f9cc465e1c5a2a38c667527ef43c9b2f7db86a072421c12a026160b5b9a1866a274e1ba8d202f108c6d`,
		},
	},
}
