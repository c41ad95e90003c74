package dashboard

// WidgetSentence is widgetSentence, for the tests of package dashboard_test.
var WidgetSentence = widgetSentence

// SetRealtimeRefresh sets the real-time panel's refresh, in seconds, and
// returns what puts it back.
func SetRealtimeRefresh(s int) func() {
	old := realtimeRefresh
	realtimeRefresh = s
	return func() { realtimeRefresh = old }
}
