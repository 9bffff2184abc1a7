package contract

// Stable error codes of the serving contract. Clients and the suite match on these, never on
// messages. (Task input codes — invalid_audio, unsupported_audio, ... — are declared by the
// native packages that raise them and reach the client unchanged.)
const (
	CodeInvalidJSON           = "invalid_json"
	CodeUnknownField          = "unknown_field"
	CodeDuplicateField        = "duplicate_field"
	CodeMissingField          = "missing_field"
	CodeInvalidValue          = "invalid_value"
	CodeInvalidMultipart      = "invalid_multipart"
	CodeUnsupportedOption     = "unsupported_option"
	CodeUnsupportedCapability = "unsupported_capability"
	CodeModelNotFound         = "model_not_found"
	CodeInvalidRequestID      = "invalid_request_id"
	CodeDuplicateRequestID    = "duplicate_request_id"
	CodeRequestTooLarge       = "request_too_large"
	CodeServerBusy            = "server_busy"
	CodeUnauthorized          = "invalid_api_key"
	CodeNotFound              = "not_found"
	CodeMethodNotAllowed      = "method_not_allowed"
	CodeArtifactExpired       = "artifact_expired"
	CodeInternal              = "internal_error"
	CodeShuttingDown          = "shutting_down"
	CodeNotReady              = "not_ready"
	CodeClientClosed          = "client_closed_request"   // status 499: the client went away first
	CodeRequestTimeout        = "request_timeout"         // status 408: the body did not arrive in time
	CodeRecordsUnavailable    = "records_unavailable"     // status 503: the request's record could not be written
	CodeMalformedRequest      = "malformed_request"       // refused by the HTTP layer before any route: no id, no route
	CodeArtifactQuota         = "artifact_quota_exceeded" // status 507: url images kept are at their quota
	CodeTooManyElements       = "too_many_elements"       // status 413: a repeated element (array elements, JSON values, clips, form parts) past its count limit
)
