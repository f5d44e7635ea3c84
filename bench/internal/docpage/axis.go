package docpage

import (
	"fmt"
	"math"
	"strings"
)

// NiceStep rounds a chart's tick step up to 1, 2 or 5 times a power of ten.
func NiceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if x <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// Tick formats an axis value: k for thousands.
func Tick(v float64) string {
	switch {
	case v >= 1e3:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e3), ".0") + "k"
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2g", v)
}
