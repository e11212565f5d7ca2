package debsrc

import (
	"archive/tar"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// Debian's patch series. A 3.0 (quilt) source package is its upstream tarball with the
// patches of debian/patches/series applied in order (dpkg-source -x does it): the
// fixes Debian carries for a newer compiler, a newer library's API or a repacked
// tree. The series and the patches are read as text from the verified packaging
// tarball, bounded like the rest of it; applying them is the caller's (patch(1) in the
// sandbox), never this package's.

const (
	patchDir        = "debian/patches/"
	maxPatchBytes   = 4 << 20  // one patch file
	maxPatchesBytes = 32 << 20 // all patch files together
	maxSeriesBytes  = 1 << 20  // the series file
	maxSeries       = 1000     // patches in a series
)

// Patch is one patch of a packaging's series.
type Patch struct {
	// Name is its name in the series, relative to debian/patches.
	Name string
	// Level is the number of leading path components patch(1) strips (-pN; 1 unless
	// the series says otherwise).
	Level int
	// Diff is the patch file's text: a DEP-3 header, then unified diffs.
	Diff string
}

// SeriesEntry is one line of a series file.
type SeriesEntry struct {
	Name  string
	Level int
}

// ParseSeries reads a quilt series file: one patch name a line with an optional -pN
// option, # comments and blank lines skipped. A name that is absolute or climbs out of
// debian/patches is an error, as are more than maxSeries entries.
func ParseSeries(text string) ([]SeriesEntry, error) {
	var out []SeriesEntry
	for i, line := range strings.Split(text, "\n") {
		if c := strings.Index(line, "#"); c >= 0 && (c == 0 || line[c-1] == ' ' || line[c-1] == '\t') {
			line = line[:c]
		}
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		e := SeriesEntry{Name: path.Clean(fields[0]), Level: 1}
		if path.IsAbs(e.Name) || e.Name == ".." || strings.HasPrefix(e.Name, "../") {
			return nil, fmt.Errorf("series line %d: %q is not a name inside debian/patches", i+1, fields[0])
		}
		for _, opt := range fields[1:] {
			lv, ok := strings.CutPrefix(opt, "-p")
			if !ok {
				return nil, fmt.Errorf("series line %d: option %q is not -pN", i+1, opt)
			}
			n, err := strconv.Atoi(lv)
			if err != nil || n < 0 || n > 9 {
				return nil, fmt.Errorf("series line %d: option %q is not -pN", i+1, opt)
			}
			e.Level = n
		}
		if len(out) == maxSeries {
			return nil, fmt.Errorf("the series names more than %d patches", maxSeries)
		}
		out = append(out, e)
	}
	return out, nil
}

// patchCollector gathers the members under debian/patches while the packaging is read,
// so one pass gives debian/rules and the series.
type patchCollector struct {
	files      map[string]string
	seriesText map[string]string // "series", "debian.series"
	total      int
	err        error
}

func (c *patchCollector) fail(err error) {
	if c.err == nil {
		c.err = err
	}
}

// add reads the member rel (relative to debian/patches) from tr.
func (c *patchCollector) add(h *tar.Header, rel string, tr io.Reader) {
	if c.err != nil || h.Typeflag != tar.TypeReg {
		return
	}
	limit := int64(maxPatchBytes)
	isSeries := rel == "series" || rel == "debian.series"
	if isSeries {
		limit = maxSeriesBytes
	}
	if h.Size > limit {
		c.fail(fmt.Errorf("debian/patches/%s is %d bytes, more than the %d allowed", rel, h.Size, limit))
		return
	}
	if c.total += int(h.Size); c.total > maxPatchesBytes {
		c.fail(fmt.Errorf("debian/patches holds more than %d bytes", maxPatchesBytes))
		return
	}
	data, err := io.ReadAll(io.LimitReader(tr, limit))
	if err != nil {
		c.fail(fmt.Errorf("read debian/patches/%s: %w", rel, err))
		return
	}
	if isSeries {
		if c.seriesText == nil {
			c.seriesText = map[string]string{}
		}
		c.seriesText[rel] = string(data)
		return
	}
	if c.files == nil {
		c.files = map[string]string{}
	}
	c.files[rel] = string(data)
}

// ordered returns the patches in the order of the series dpkg-source reads (the vendor
// series debian.series before series).
func (c *patchCollector) ordered() ([]Patch, error) {
	if c.err != nil {
		return nil, c.err
	}
	text, ok := c.seriesText["debian.series"]
	if !ok {
		if text, ok = c.seriesText["series"]; !ok {
			return nil, nil
		}
	}
	entries, err := ParseSeries(text)
	if err != nil {
		return nil, err
	}
	out := make([]Patch, 0, len(entries))
	for _, e := range entries {
		diff, ok := c.files[e.Name]
		if !ok {
			return nil, fmt.Errorf("the series names %s, which debian/patches does not hold", e.Name)
		}
		out = append(out, Patch{Name: e.Name, Level: e.Level, Diff: diff})
	}
	return out, nil
}
