package secretscan

import "testing"

func TestAWSSecretShape(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"kF3n7Qm1/xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9m", true},
		{"kF3n7Qm1/xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9", false},   // 39
		{"kF3n7Qm1/xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9mz", false}, // 41
		{"kF3n7Qm1-xA9zL0pR2sT4uV6wY8bC+dE5gH7jK9m", false},  // '-' is not base64
	} {
		if got := awsSecretShape(tc.v); got != tc.want {
			t.Errorf("awsSecretShape(%q) = %v", tc.v, got)
		}
	}
}
