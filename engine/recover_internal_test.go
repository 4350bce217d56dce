package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPrefixBytes holds the recovery limit's arithmetic to LinePrefix itself.
func TestPrefixBytes(t *testing.T) {
	sum := 0
	for n := 1; n <= 12_000; n++ {
		sum += len(LinePrefix(n))
		if !assert.Equal(t, len(LinePrefix(n)), prefixLen(n), "prefixLen(%d)", n) ||
			!assert.Equal(t, sum, prefixBytes(n), "prefixBytes(%d)", n) {
			return
		}
	}
	assert.Equal(t, 0, prefixBytes(0))
}
