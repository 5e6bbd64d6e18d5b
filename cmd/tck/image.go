package main

import (
	"fmt"
	"os"
)

// reportsHint says what to do about a reports folder tck cannot write. In the image (TCK_IMAGE is set there)
// the usual cause is the user the container runs as, who does not own the mounted folder.
func reportsHint(dir string) string {
	if img := os.Getenv("TCK_IMAGE"); img != "" {
		return fmt.Sprintf("Give a folder tck can write: in the image %s tck runs as uid %d, which cannot write %s. Run the image as the "+
			"owner of the mounted folder (docker run --user \"$(id -u):$(id -g)\" ...), so that the reports are yours too.", img, os.Getuid(), dir)
	}
	return "Give a folder tck can write."
}
