package provision

import atesor "github.com/eclipse-atesor/atesor-go"

// ProfileOf returns the platform's root-filesystem recipe: its profile, else its name
// (ubuntu uses the debian recipe).
func ProfileOf(p atesor.Platform) string {
	if p.Profile != "" {
		return p.Profile
	}
	if p.Name == "ubuntu" {
		return "debian"
	}
	return p.Name
}

// UpdateCommand is the profile's package index update (apt-get update, apk update).
func UpdateCommand(p atesor.Platform) string {
	switch {
	case p.UpdateCommand != "":
		return p.UpdateCommand
	case ProfileOf(p) == "alpine":
		return "apk update"
	}
	return "apt-get update"
}
