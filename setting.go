package svc

import "context"

// SettingPublicURL is the setting that holds the address shoppers and
// brands reach the service at, as serve was last given it, so that admin
// commands on any machine print addresses where the nodes are reached.
const SettingPublicURL = "public_url"

// SettingStore keeps settings of the whole service, shared by every node
// and admin command on the store.
type SettingStore interface {
	// Setting returns the value of the setting name. Returns ENOTFOUND
	// if it was never set.
	Setting(ctx context.Context, name string) (string, error)
	// SetSetting sets the setting name to value.
	SetSetting(ctx context.Context, name, value string) error
}
