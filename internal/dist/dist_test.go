package dist

import (
	"math"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Every function gives gonum's distuv's value to the last bit, over the
// probabilities and degrees of freedom the intervals use and beyond.
func TestAgreesWithDistuv(t *testing.T) {
	ps := []float64{0, 1e-12, 0.001, 0.025, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.95, 0.975, 0.999, 1 - 1e-12, 1}
	check := func(name string, arg, got, want float64) {
		t.Helper()
		if got != want && !(got != got && want != want) {
			t.Errorf("%s(%g) = %.17g; distuv gives %.17g", name, arg, got, want)
		}
	}
	for _, p := range ps {
		check("NormalQuantile", p, NormalQuantile(p), distuv.UnitNormal.Quantile(p))
		for _, k := range []float64{1, 2, 3, 7.5, 22, 1000, 2e6} {
			check("ChiSquaredQuantile k="+strconv.FormatFloat(k, 'g', -1, 64), p, ChiSquaredQuantile(k, p), distuv.ChiSquared{K: k}.Quantile(p))
		}
		for _, nu := range []float64{1, 2, 3, 4, 9, 29, 99, 1e4} {
			check("StudentTQuantile nu="+strconv.FormatFloat(nu, 'g', -1, 64), p, StudentTQuantile(nu, p), distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(p))
		}
	}
	for _, x := range []float64{-40, -8, -3, -1.96, -0.5, 0, 0.1, 1, 1.96, 5, 9, 40} {
		check("NormalCDF", x, NormalCDF(x), distuv.UnitNormal.CDF(x))
		check("NormalSurvival", x, NormalSurvival(x), distuv.UnitNormal.Survival(x))
	}
}

// The quantiles agree to 12 digits with closed forms (Student's t with 1
// and 2 degrees of freedom, the chi-square with 2) and with the tables' z
// and t with 9 degrees of freedom.
func TestClosedForms(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"z 0.975", NormalQuantile(0.975), 1.959963984540054},
		{"t(9) 0.975", StudentTQuantile(9, 0.975), 2.262157162798205},
		{"t(9) 0.025", StudentTQuantile(9, 0.025), -2.262157162798205},
		{"t(1) 0.975", StudentTQuantile(1, 0.975), math.Tan(math.Pi * (0.975 - 0.5))},
		{"t(1) 0.1", StudentTQuantile(1, 0.1), math.Tan(math.Pi * (0.1 - 0.5))},
		{"t(2) 0.975", StudentTQuantile(2, 0.975), (2*0.975 - 1) / math.Sqrt(2*0.975*0.025)},
		{"t(2) 0.3", StudentTQuantile(2, 0.3), (2*0.3 - 1) / math.Sqrt(2*0.3*0.7)},
		{"chi2(2) 0.025", ChiSquaredQuantile(2, 0.025), -2 * math.Log(1-0.025)},
		{"chi2(2) 0.975", ChiSquaredQuantile(2, 0.975), -2 * math.Log(1-0.975)},
	} {
		if math.Abs(c.got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("%s = %.16g; want %.16g", c.name, c.got, c.want)
		}
	}
}
