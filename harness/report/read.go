package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// FileName is the conformance report's name in a reports folder.
const FileName = "conformance-report.yaml"

// APIVersion and Kind identify a conformance report of this suite.
const (
	APIVersion = "fortune-tck/v1alpha1"
	KindName   = "ConformanceReport"
)

// Load reads a run's conformance report from a reports folder or from the file itself, and returns it with the
// file's path. What is missing or is not such a report is an error that says what was expected.
func Load(path string) (ConformanceReport, string, error) {
	var rep ConformanceReport
	st, err := os.Stat(path)
	if err != nil {
		return rep, path, err
	}
	file := path
	if st.IsDir() {
		file = filepath.Join(path, FileName)
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return rep, file, fmt.Errorf("%s holds no %s: give the --reports folder of a tck run, or the report itself", path, FileName)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return rep, file, err
	}
	if err := yaml.Unmarshal(data, &rep); err != nil {
		return rep, file, fmt.Errorf("%s: not YAML: %v", file, err)
	}
	if rep.Kind != KindName || rep.APIVersion != APIVersion {
		return rep, file, fmt.Errorf("%s: not a conformance report of fortune-tck (apiVersion %q, kind %q; want %s, %s)",
			file, rep.APIVersion, rep.Kind, APIVersion, KindName)
	}
	return rep, file, nil
}
