// Package docs is the project's documentation beyond the README: the target file, the architecture, operating
// the reference, reports, interoperability, performance and CI, as Markdown files. It has no code; its tests
// check the documentation: every relative link of README.md, CONTRIBUTING.md and docs/*.md resolves (files and
// #anchors, by GitHub's rules), the README points at nothing outside the repository, and each of the README's
// commands exists as written and names the test that runs it.
package docs
