package compat

import "strconv"

// pairing is one step of an alignment of two lists: indexes of the elements compared, -1 for an
// element present on the other side only.
type pairing struct{ l, r int }

// index names the element: its index, or left/right indexes when elements were dropped or added
// before it.
func (p pairing) index() string {
	switch {
	case p.r < 0:
		return strconv.Itoa(p.l)
	case p.l < 0 || p.l == p.r:
		return strconv.Itoa(p.r)
	}
	return strconv.Itoa(p.l) + "/" + strconv.Itoa(p.r)
}

// maxAlign bounds the element comparisons of one alignment; longer lists are paired by index.
const maxAlign = 1 << 20

// align pairs the elements of two lists of lengths n and m: by index when the lengths are equal,
// otherwise along a longest common subsequence of equal elements, so that one dropped element
// reads as one difference rather than as a shifted tail. Between two common elements, the
// unmatched ones are paired in order and the rest are one-sided.
func align(n, m int, eq func(i, j int) bool) []pairing {
	if n == m || n*m > maxAlign {
		out := make([]pairing, 0, max(n, m))
		for i := range max(n, m) {
			p := pairing{i, i}
			if i >= n {
				p.l = -1
			} else if i >= m {
				p.r = -1
			}
			out = append(out, p)
		}
		return out
	}
	same := make([]bool, n*m)
	// lcs[i*(m+1)+j] is the length of a longest common subsequence of l[i:] and r[j:].
	lcs := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			same[i*m+j] = eq(i, j)
			if same[i*m+j] {
				lcs[i*(m+1)+j] = lcs[(i+1)*(m+1)+j+1] + 1
			} else {
				lcs[i*(m+1)+j] = max(lcs[(i+1)*(m+1)+j], lcs[i*(m+1)+j+1])
			}
		}
	}
	var out []pairing
	var gl, gr []int
	flush := func() {
		k := 0
		for ; k < len(gl) && k < len(gr); k++ {
			out = append(out, pairing{gl[k], gr[k]})
		}
		for _, i := range gl[k:] {
			out = append(out, pairing{i, -1})
		}
		for _, j := range gr[k:] {
			out = append(out, pairing{-1, j})
		}
		gl, gr = gl[:0], gr[:0]
	}
	for i, j := 0, 0; i < n || j < m; {
		switch {
		case i < n && j < m && same[i*m+j] && lcs[i*(m+1)+j] == lcs[(i+1)*(m+1)+j+1]+1:
			flush()
			out = append(out, pairing{i, j})
			i, j = i+1, j+1
		case j == m || i < n && lcs[(i+1)*(m+1)+j] >= lcs[i*(m+1)+j+1]:
			gl = append(gl, i)
			i++
		default:
			gr = append(gr, j)
			j++
		}
	}
	flush()
	return out
}
