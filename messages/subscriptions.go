package messages

// SubscriptionFilter selects the notifications of a subscriptions/listen
// stream; each kind is opt-in (2026-07-28 draft).
type SubscriptionFilter struct {
	ToolsListChanged     bool `json:"toolsListChanged,omitempty"`
	PromptsListChanged   bool `json:"promptsListChanged,omitempty"`
	ResourcesListChanged bool `json:"resourcesListChanged,omitempty"`
	// ResourceSubscriptions are URIs to get notifications/resources/updated
	// for; they replace resources/subscribe.
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// SubscriptionsListenParams are the params of subscriptions/listen
// (2026-07-28 draft).
type SubscriptionsListenParams struct {
	Meta          Meta               `json:"_meta,omitempty"`
	Notifications SubscriptionFilter `json:"notifications"`
}

// SubscriptionsAcknowledgedParams are the params of
// notifications/subscriptions/acknowledged: the subset of the filter the
// server honours (2026-07-28 draft).
type SubscriptionsAcknowledgedParams struct {
	Meta          Meta               `json:"_meta,omitempty"`
	Notifications SubscriptionFilter `json:"notifications"`
}
