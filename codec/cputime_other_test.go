//go:build !unix

package codec

import "time"

func processCPU() time.Duration { return 0 }
