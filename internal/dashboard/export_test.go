package dashboard

// WidgetSentence is widgetSentence, for the tests of package dashboard_test.
var WidgetSentence = widgetSentence
