/// schema/retry-policy.schema.json, the policy format's JSON Schema, as
/// the binary carries it for hover and completion (a release archive
/// ships no schema folder). `PolicySchemaTextTests` holds it to the file;
/// `scripts/embed-schema` writes it.
enum PolicySchemaText {
    static let json = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "urn:swift-retry-policy:schema:policy-file:1",
  "title": "swift-retry-policy file (format version 1)",
  "description": "A retry policy (rules, backoff, Retry-After handling, timeouts, budget, circuit breaker) or a stack file (the layers a request passes through). A file with `stack` is a stack file; any other is a policy file. Unknown keys are errors.",
  "type": "object",
  "if": {
    "required": [
      "stack"
    ]
  },
  "then": {
    "$ref": "#/$defs/stackFile"
  },
  "else": {
    "$ref": "#/$defs/policyFile"
  },
  "$defs": {
    "version": {
      "const": 1,
      "description": "The format version; only 1 exists.",
      "examples": [
        1
      ]
    },
    "name": {
      "type": "string",
      "pattern": "^[A-Za-z0-9._-]{1,128}$",
      "description": "The policy's name, as it appears in messages and metrics: letters, digits, '.', '_', '-'.",
      "examples": [
        "tmdb",
        "ios-sdk"
      ]
    },
    "description": {
      "type": "string",
      "description": "Free text for readers."
    },
    "duration": {
      "type": "string",
      "pattern": "^(?=[0-9])(?:[0-9]+(?:\\.[0-9]{1,9})?h)?(?:[0-9]+(?:\\.[0-9]{1,9})?m)?(?:[0-9]+(?:\\.[0-9]{1,9})?s)?(?:[0-9]+(?:\\.[0-9]{1,6})?ms)?$",
      "description": "A duration: one or more <number><unit> with units h, m, s, ms in descending order. Decimals go down to a nanosecond (at most 9, or 6 for ms). A bare number is an error (seconds or milliseconds?). At most 100 days (the loader checks the sum; a pattern cannot).",
      "examples": [
        "250ms",
        "1s",
        "10s",
        "1m30s",
        "1.5s"
      ]
    },
    "positiveDuration": {
      "description": "A duration above zero: at least one non-zero digit.",
      "allOf": [
        {
          "$ref": "#/$defs/duration"
        },
        {
          "pattern": "[1-9]"
        }
      ],
      "examples": [
        "250ms",
        "10s",
        "1m30s"
      ]
    },
    "method": {
      "enum": [
        "GET",
        "HEAD",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "OPTIONS",
        "TRACE",
        "CONNECT"
      ],
      "description": "A standard HTTP method, upper case."
    },
    "transport": {
      "enum": [
        "timeout",
        "connection_lost",
        "offline",
        "dns",
        "tls",
        "connection_refused",
        "cancelled",
        "invalid_url",
        "decoding",
        "unknown"
      ],
      "description": "A transport failure class: a failure before a complete response arrived."
    },
    "grpcStatus": {
      "enum": [
        "OK",
        "CANCELLED",
        "UNKNOWN",
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION",
        "ABORTED",
        "OUT_OF_RANGE",
        "UNIMPLEMENTED",
        "INTERNAL",
        "UNAVAILABLE",
        "DATA_LOSS",
        "UNAUTHENTICATED"
      ],
      "description": "A gRPC status code by its canonical upper-case name (grpc/grpc doc/statuscodes.md)."
    },
    "errorKind": {
      "description": "An error kind: a standard one, or one declared under `errors`.",
      "anyOf": [
        {
          "enum": [
            "no_fill",
            "network_error",
            "status_429",
            "status_5xx",
            "timeout",
            "internal_error",
            "invalid_placement",
            "unauthorized",
            "not_found",
            "cancelled",
            "decoding_failed"
          ]
        },
        {
          "type": "string",
          "pattern": "^[a-z][a-z0-9_]{0,63}$"
        }
      ],
      "examples": [
        "no_fill",
        "network_error",
        "status_429",
        "status_5xx",
        "timeout",
        "internal_error",
        "invalid_placement",
        "unauthorized",
        "not_found",
        "cancelled",
        "decoding_failed"
      ]
    },
    "condition": {
      "type": "string",
      "pattern": "^[a-z][a-z0-9_]{0,63}$",
      "description": "An outcome class declared under `conditions`: the caller's code classifies results into it (a 200 whose body is an error page, say); rules decide what it means.",
      "examples": [
        "malformed_body"
      ]
    },
    "action": {
      "enum": [
        "retry",
        "stop",
        "success"
      ],
      "description": "retry: retry if attempts, idempotency, deadline and budget allow; stop: fail now with the rule's error; success: treat the response as a success."
    },
    "statusPattern": {
      "description": "An HTTP status code (429), a class (\"5xx\") or an inclusive range (\"500-504\"), within 100-599. Write single codes as numbers, without quotes.",
      "oneOf": [
        {
          "type": "integer",
          "minimum": 100,
          "maximum": 599
        },
        {
          "type": "string",
          "pattern": "^(?:[1-5]xx|[1-5][0-9]{2}-[1-5][0-9]{2})$"
        }
      ],
      "examples": [
        429,
        "5xx",
        "500-504"
      ]
    },
    "timeoutBudget": {
      "type": "object",
      "description": "How long one attempt, and the whole request with its retries and waits, may take.",
      "additionalProperties": false,
      "properties": {
        "per_attempt": {
          "$ref": "#/$defs/positiveDuration",
          "description": "Limit for one attempt; exceeding it is a `timeout` transport failure. Above zero."
        },
        "total": {
          "$ref": "#/$defs/positiveDuration",
          "description": "Limit for the request including every retry and wait; no retry is scheduled that would end past it. Above zero."
        }
      },
      "examples": [
        {
          "per_attempt": "10s",
          "total": "30s"
        }
      ]
    },
    "rule": {
      "type": "object",
      "description": "One line of the decision table: conditions (status, transport, a declared condition and/or gRPC statuses, optionally methods) and what they mean. Rules are evaluated in order; the first match wins.",
      "additionalProperties": false,
      "required": [
        "action"
      ],
      "anyOf": [
        {
          "required": [
            "status"
          ]
        },
        {
          "required": [
            "transport"
          ]
        },
        {
          "required": [
            "condition"
          ]
        },
        {
          "required": [
            "grpc"
          ]
        }
      ],
      "if": {
        "properties": {
          "action": {
            "enum": [
              "retry",
              "stop"
            ]
          }
        }
      },
      "then": {
        "required": [
          "error"
        ]
      },
      "properties": {
        "status": {
          "description": "Status codes the rule matches: a pattern or a list of patterns.",
          "oneOf": [
            {
              "$ref": "#/$defs/statusPattern"
            },
            {
              "type": "array",
              "minItems": 1,
              "items": {
                "$ref": "#/$defs/statusPattern"
              }
            }
          ],
          "examples": [
            429,
            "5xx",
            [
              500,
              "502-504"
            ]
          ]
        },
        "transport": {
          "description": "Transport failure classes the rule matches: one or a list.",
          "oneOf": [
            {
              "$ref": "#/$defs/transport"
            },
            {
              "type": "array",
              "minItems": 1,
              "items": {
                "$ref": "#/$defs/transport"
              }
            }
          ],
          "examples": [
            "timeout",
            [
              "connection_lost",
              "offline"
            ]
          ]
        },
        "condition": {
          "description": "Declared conditions (under `conditions`) the rule matches: one or a list.",
          "oneOf": [
            {
              "$ref": "#/$defs/condition"
            },
            {
              "type": "array",
              "minItems": 1,
              "items": {
                "$ref": "#/$defs/condition"
              }
            }
          ],
          "examples": [
            "malformed_body",
            [
              "malformed_body",
              "maintenance_page"
            ]
          ]
        },
        "grpc": {
          "description": "gRPC statuses the rule matches, by name: one or a list. A gRPC outcome is matched only by these, an HTTP response never.",
          "oneOf": [
            {
              "$ref": "#/$defs/grpcStatus"
            },
            {
              "type": "array",
              "minItems": 1,
              "items": {
                "$ref": "#/$defs/grpcStatus"
              }
            }
          ],
          "examples": [
            "UNAVAILABLE",
            [
              "UNAVAILABLE",
              "RESOURCE_EXHAUSTED"
            ]
          ]
        },
        "methods": {
          "type": "array",
          "minItems": 1,
          "items": {
            "$ref": "#/$defs/method"
          },
          "description": "Restricts the rule to these methods; absent means every method.",
          "examples": [
            [
              "GET",
              "HEAD"
            ]
          ]
        },
        "error": {
          "$ref": "#/$defs/errorKind",
          "description": "The error kind a stop (or an exhausted retry) reports. Required for retry and stop."
        },
        "action": {
          "$ref": "#/$defs/action"
        },
        "honor_retry_after": {
          "type": "boolean",
          "description": "Overrides retry_after.honor for this rule."
        },
        "refresh_credentials": {
          "type": "boolean",
          "description": "Refresh credentials, then retry, at most once per request (401 refresh-then-retry)."
        }
      },
      "examples": [
        {
          "status": 429,
          "error": "status_429",
          "action": "retry"
        }
      ]
    },
    "retryAfterHeader": {
      "type": "object",
      "description": "A response header that carries a server-directed delay.",
      "additionalProperties": false,
      "required": [
        "name"
      ],
      "properties": {
        "name": {
          "type": "string",
          "pattern": "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$",
          "description": "The header name.",
          "examples": [
            "Retry-After",
            "retry-after-ms"
          ]
        },
        "format": {
          "enum": [
            "http",
            "seconds",
            "milliseconds",
            "unix_seconds"
          ],
          "description": "http: delta-seconds or HTTP-date (Retry-After); seconds; milliseconds; unix_seconds: a Unix time to retry at. Default http."
        }
      }
    },
    "policyFile": {
      "type": "object",
      "additionalProperties": false,
      "required": [
        "version",
        "name"
      ],
      "properties": {
        "version": {
          "$ref": "#/$defs/version"
        },
        "name": {
          "$ref": "#/$defs/name"
        },
        "description": {
          "$ref": "#/$defs/description"
        },
        "extends": {
          "type": "string",
          "minLength": 1,
          "description": "Another policy file, relative to this one. Its keys are the defaults for this file's keys: mappings merge key by key, lists and scalars replace. It lends settings, not identity: this file still writes its own version and name.",
          "examples": [
            "timeout-budgets.yaml"
          ]
        },
        "platform": {
          "type": "string",
          "pattern": "^[a-z][a-z0-9_]{0,63}$",
          "description": "The platform whose error names the policy reports in.",
          "examples": [
            "ios",
            "android"
          ]
        },
        "attempts": {
          "type": "integer",
          "minimum": 1,
          "maximum": 100,
          "description": "Every try including the first (gRPC style): 1 means no retry, 4 means up to 3 retries. Default 1.",
          "examples": [
            1,
            4
          ]
        },
        "idempotency": {
          "type": "object",
          "description": "Which requests may be sent twice.",
          "additionalProperties": false,
          "properties": {
            "methods": {
              "type": "array",
              "items": {
                "$ref": "#/$defs/method"
              },
              "description": "Methods that are retried. Default GET, HEAD, PUT, DELETE, OPTIONS.",
              "examples": [
                [
                  "GET",
                  "HEAD",
                  "PUT",
                  "DELETE",
                  "OPTIONS"
                ]
              ]
            },
            "honor_idempotent_requests": {
              "type": "boolean",
              "description": "A request the caller marked idempotent (an idempotency key) is retryable whatever its method. Default true."
            }
          }
        },
        "backoff": {
          "type": "object",
          "description": "The delay before retry k when the server gave none: exponential min(initial x multiplier^(k-1), max) or linear min(initial + step x (k-1), max), then jitter, then the min floor.",
          "additionalProperties": false,
          "properties": {
            "shape": {
              "enum": [
                "exponential",
                "linear"
              ],
              "description": "exponential: initial x multiplier^(k-1); linear: initial + step x (k-1). Default exponential."
            },
            "initial": {
              "$ref": "#/$defs/duration",
              "description": "Base delay before the first retry. Default 0s."
            },
            "step": {
              "$ref": "#/$defs/duration",
              "description": "What a linear backoff adds per retry; required with shape linear, refused otherwise (RP026)."
            },
            "max": {
              "$ref": "#/$defs/duration",
              "description": "Cap on the base delay. Default: initial."
            },
            "min": {
              "$ref": "#/$defs/duration",
              "description": "Floor of the delay, applied after jitter; at most max. Default: 0s."
            },
            "multiplier": {
              "type": "number",
              "minimum": 0,
              "maximum": 100,
              "description": "Growth per retry of an exponential backoff (refused with shape linear, RP026). Default 2.",
              "examples": [
                2
              ]
            },
            "jitter": {
              "enum": [
                "none",
                "full",
                "equal",
                "decorrelated"
              ],
              "description": "none: exactly the base; full: uniform [0, base]; equal: uniform [base/2, base]; decorrelated: uniform [initial, min(max, 3 x previous)]. Default full."
            }
          },
          "if": {
            "properties": {
              "shape": {
                "const": "linear"
              }
            },
            "required": [
              "shape"
            ]
          },
          "then": {
            "required": [
              "step"
            ],
            "not": {
              "required": [
                "multiplier"
              ]
            }
          },
          "else": {
            "not": {
              "required": [
                "step"
              ]
            }
          },
          "examples": [
            {
              "initial": "1s",
              "max": "30s",
              "multiplier": 2,
              "jitter": "full"
            },
            {
              "shape": "linear",
              "initial": "1s",
              "step": "500ms",
              "max": "5s",
              "jitter": "full"
            }
          ]
        },
        "retry_after": {
          "type": "object",
          "description": "How server-directed delays (Retry-After and vendor headers) are treated.",
          "additionalProperties": false,
          "properties": {
            "honor": {
              "type": "boolean",
              "description": "Whether server delays are honoured. Default true; rules may override with honor_retry_after."
            },
            "cap": {
              "$ref": "#/$defs/duration",
              "description": "The longest server delay accepted. Absent means no cap (lint warns)."
            },
            "above_cap": {
              "enum": [
                "stop",
                "clamp",
                "ignore"
              ],
              "description": "Above the cap: stop (fail with the server's delay), clamp (wait the cap), ignore (use the backoff). Default stop."
            },
            "combine": {
              "enum": [
                "server",
                "max"
              ],
              "description": "server: wait exactly the server's delay; max: the larger of it and the jittered backoff. Default server."
            },
            "cooldown": {
              "enum": [
                "off",
                "wait",
                "reject"
              ],
              "description": "Before every attempt, while an earlier server delay runs: off, wait it out, or reject without a request. Default off."
            },
            "headers": {
              "type": "array",
              "items": {
                "$ref": "#/$defs/retryAfterHeader"
              },
              "description": "Headers consulted in order; the first present and valid wins. Default [{name: Retry-After, format: http}]."
            }
          },
          "examples": [
            {
              "honor": true,
              "cap": "60s",
              "above_cap": "stop"
            }
          ]
        },
        "timeouts": {
          "$ref": "#/$defs/timeoutBudget"
        },
        "endpoints": {
          "type": "object",
          "description": "Per-endpoint (per-placement) overrides of `timeouts`, by endpoint name.",
          "propertyNames": {
            "minLength": 1
          },
          "additionalProperties": {
            "$ref": "#/$defs/timeoutBudget"
          },
          "examples": [
            {
              "main_banner": {
                "per_attempt": "5s",
                "total": "5s"
              }
            }
          ]
        },
        "budget": {
          "type": "object",
          "description": "A retry budget shared by every request under the policy: a token bucket (AWS SDK retry quota), gRPC retry throttling (preset grpc) or a ratio budget (Finagle, Linkerd, Envoy, Gateway API: presets finagle, envoy, gateway-api, or retry_percent, min_retries_per_second and window without a preset). Absent means no budget.",
          "additionalProperties": false,
          "properties": {
            "preset": {
              "enum": [
                "aws-standard",
                "aws-standard-2026",
                "grpc",
                "finagle",
                "envoy",
                "gateway-api"
              ],
              "description": "Named numbers: aws-standard (500 tokens, retry 5, timeout 10, throttling 5, refund 1), aws-standard-2026 (500, retry 14, timeout 14, throttling 5, refund 1), grpc (gRPC retryThrottling: max_tokens and token_ratio, required), finagle (ratio: 20 %, 10 retries a second, 10s window; Linkerd's defaults are the same), envoy (ratio: 20 %, 3 a second, 1s window), gateway-api (ratio: 20 %, 10 a second, 10s window). Explicit keys override a preset's numbers."
            },
            "capacity": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000000,
              "description": "Tokens in a full bucket. Default 500."
            },
            "retry_cost": {
              "type": "integer",
              "minimum": 0,
              "maximum": 1000000,
              "description": "Tokens a retry after a transient failure (5xx, network error) costs. Default 5."
            },
            "timeout_retry_cost": {
              "type": "integer",
              "minimum": 0,
              "maximum": 1000000,
              "description": "Tokens a retry after a timeout costs. Default 10."
            },
            "throttling_retry_cost": {
              "type": "integer",
              "minimum": 0,
              "maximum": 1000000,
              "description": "Tokens a retry after a throttling error (one of throttling_errors) costs. Default: retry_cost."
            },
            "throttling_errors": {
              "type": "array",
              "items": {
                "$ref": "#/$defs/errorKind"
              },
              "description": "The error kinds that count as throttling. Default [status_429]."
            },
            "success_refund": {
              "type": "integer",
              "minimum": 0,
              "maximum": 1000000,
              "description": "Tokens a success without retries gives back. Default 1."
            },
            "max_tokens": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "description": "preset grpc: gRPC retryThrottling.maxTokens; retries stop while at most half remain."
            },
            "token_ratio": {
              "type": "number",
              "exclusiveMinimum": 0,
              "maximum": 1000,
              "description": "preset grpc: gRPC retryThrottling.tokenRatio, tokens a success returns; at most three decimals (RP013)."
            },
            "retry_percent": {
              "type": "number",
              "minimum": 0,
              "maximum": 1000,
              "description": "Ratio budget: the retries allowed as a percentage of the requests in the window, at most one decimal (RP013). Default 20."
            },
            "min_retries_per_second": {
              "type": "integer",
              "minimum": 0,
              "maximum": 1000000,
              "description": "Ratio budget: retries always allowed per second, whatever the traffic. Default 10."
            },
            "window": {
              "allOf": [
                {
                  "$ref": "#/$defs/positiveDuration"
                }
              ],
              "description": "Ratio budget: how long a request's deposit counts, 1s to 60s (RP019). Default 10s."
            }
          },
          "allOf": [
            {
              "if": {
                "properties": {
                  "preset": {
                    "const": "grpc"
                  }
                },
                "required": [
                  "preset"
                ]
              },
              "then": {
                "required": [
                  "max_tokens",
                  "token_ratio"
                ],
                "not": {
                  "anyOf": [
                    {
                      "required": [
                        "capacity"
                      ]
                    },
                    {
                      "required": [
                        "retry_cost"
                      ]
                    },
                    {
                      "required": [
                        "timeout_retry_cost"
                      ]
                    },
                    {
                      "required": [
                        "throttling_retry_cost"
                      ]
                    },
                    {
                      "required": [
                        "throttling_errors"
                      ]
                    },
                    {
                      "required": [
                        "success_refund"
                      ]
                    },
                    {
                      "required": [
                        "retry_percent"
                      ]
                    },
                    {
                      "required": [
                        "min_retries_per_second"
                      ]
                    },
                    {
                      "required": [
                        "window"
                      ]
                    }
                  ]
                }
              },
              "else": {
                "not": {
                  "anyOf": [
                    {
                      "required": [
                        "max_tokens"
                      ]
                    },
                    {
                      "required": [
                        "token_ratio"
                      ]
                    }
                  ]
                }
              }
            },
            {
              "if": {
                "anyOf": [
                  {
                    "properties": {
                      "preset": {
                        "enum": [
                          "finagle",
                          "envoy",
                          "gateway-api"
                        ]
                      }
                    },
                    "required": [
                      "preset"
                    ]
                  },
                  {
                    "not": {
                      "required": [
                        "preset"
                      ]
                    },
                    "anyOf": [
                      {
                        "required": [
                          "retry_percent"
                        ]
                      },
                      {
                        "required": [
                          "min_retries_per_second"
                        ]
                      },
                      {
                        "required": [
                          "window"
                        ]
                      }
                    ]
                  }
                ]
              },
              "then": {
                "not": {
                  "anyOf": [
                    {
                      "required": [
                        "capacity"
                      ]
                    },
                    {
                      "required": [
                        "retry_cost"
                      ]
                    },
                    {
                      "required": [
                        "timeout_retry_cost"
                      ]
                    },
                    {
                      "required": [
                        "throttling_retry_cost"
                      ]
                    },
                    {
                      "required": [
                        "throttling_errors"
                      ]
                    },
                    {
                      "required": [
                        "success_refund"
                      ]
                    }
                  ]
                }
              },
              "else": {
                "not": {
                  "anyOf": [
                    {
                      "required": [
                        "retry_percent"
                      ]
                    },
                    {
                      "required": [
                        "min_retries_per_second"
                      ]
                    },
                    {
                      "required": [
                        "window"
                      ]
                    }
                  ]
                }
              }
            }
          ],
          "examples": [
            {
              "preset": "aws-standard-2026"
            },
            {
              "preset": "grpc",
              "max_tokens": 10,
              "token_ratio": 0.1
            },
            {
              "preset": "finagle"
            },
            {
              "retry_percent": 10,
              "min_retries_per_second": 5,
              "window": "10s"
            }
          ]
        },
        "breaker": {
          "type": "object",
          "description": "A circuit breaker shared by every request under the policy: it opens when calls fail often enough, rejects attempts at once while open (stop reason circuit_open), then lets a few probes through. Absent means no breaker.",
          "additionalProperties": false,
          "properties": {
            "window": {
              "description": "The sliding window: the last N calls (an integer), or the calls of the last duration (a duration). Default 100 calls.",
              "oneOf": [
                {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 1000000
                },
                {
                  "$ref": "#/$defs/positiveDuration"
                }
              ],
              "examples": [
                100,
                "60s"
              ]
            },
            "failure_ratio": {
              "type": "number",
              "exclusiveMinimum": 0,
              "maximum": 1,
              "description": "Failures over calls in the window at which the breaker opens. Default 0.5."
            },
            "minimum_calls": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000000,
              "description": "Calls the window must hold before the ratio counts. Default 20."
            },
            "consecutive_failures": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000000,
              "description": "Failures in a row that open the breaker whatever the ratio. Default: off."
            },
            "break": {
              "$ref": "#/$defs/positiveDuration",
              "description": "How long the breaker stays open. Default 30s."
            },
            "break_multiplier": {
              "type": "number",
              "minimum": 1,
              "maximum": 100,
              "description": "Each reopening without closing in between multiplies the break by this. Default 1 (the break does not grow)."
            },
            "max_break": {
              "$ref": "#/$defs/positiveDuration",
              "description": "The longest break a growing break reaches; at least `break` (the loader checks it)."
            },
            "half_open_probes": {
              "type": "integer",
              "minimum": 1,
              "maximum": 1000,
              "description": "Calls let through after the break; all must succeed to close. Default 5."
            },
            "failures": {
              "type": "object",
              "description": "Which outcomes count as failures; an outcome none of the lists names is a success. Absent: what the policy retries.",
              "additionalProperties": false,
              "properties": {
                "rules": {
                  "type": "array",
                  "items": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 1000000
                  },
                  "description": "Rule numbers, from 1, in the order of `rules` (the loader checks each names a rule)."
                },
                "errors": {
                  "type": "array",
                  "items": {
                    "$ref": "#/$defs/errorKind"
                  },
                  "description": "Error kinds."
                },
                "statuses": {
                  "description": "Status codes the rule matches: a pattern or a list of patterns.",
                  "oneOf": [
                    {
                      "$ref": "#/$defs/statusPattern"
                    },
                    {
                      "type": "array",
                      "minItems": 1,
                      "items": {
                        "$ref": "#/$defs/statusPattern"
                      }
                    }
                  ],
                  "examples": [
                    429,
                    "5xx",
                    [
                      500,
                      "502-504"
                    ]
                  ]
                }
              }
            },
            "error": {
              "$ref": "#/$defs/errorKind",
              "description": "The kind a rejected attempt fails with. Default status_5xx."
            }
          }
        },
        "hedging": {
          "type": "object",
          "description": "Hedging (gRPC's hedgingPolicy, Polly's hedging): copies of an idempotent request are sent `delay` apart, up to `attempts` in all, while earlier ones are still in flight; the first success wins and the others are cancelled. An outcome the policy retries starts the next copy at once; any other failure ends the request. Each copy after the first is paid for from the budget like a retry. Absent means attempts run one after another.",
          "additionalProperties": false,
          "required": [
            "delay"
          ],
          "properties": {
            "delay": {
              "$ref": "#/$defs/positiveDuration",
              "description": "How long to wait for an answer before sending the next copy.",
              "examples": [
                "200ms"
              ]
            },
            "methods": {
              "type": "array",
              "minItems": 1,
              "items": {
                "$ref": "#/$defs/method"
              },
              "description": "Methods that are hedged. Default: the retryable methods (idempotency.methods) that RFC 9110 defines as idempotent. Requests marked idempotent are hedged too when idempotency.honor_idempotent_requests is true."
            }
          }
        },
        "rate_limit": {
          "description": "AWS adaptive retry mode: a client-side rate limiter that, from the first throttling response on, paces every attempt (first tries and retries) at a rate CUBIC cuts to beta times the sending rate on each throttling response and grows back after successes. `adaptive` alone takes botocore's numbers; the mapping form changes some of them. Absent means no rate limit.",
          "oneOf": [
            {
              "const": "adaptive"
            },
            {
              "type": "object",
              "additionalProperties": false,
              "required": [
                "mode"
              ],
              "properties": {
                "mode": {
                  "const": "adaptive",
                  "description": "The limiter; AWS adaptive mode is the only one."
                },
                "beta": {
                  "type": "number",
                  "exclusiveMinimum": 0,
                  "maximum": 1,
                  "description": "CUBIC's beta: the share of the sending rate kept after a throttling response. Default 0.7."
                },
                "scale_constant": {
                  "type": "number",
                  "exclusiveMinimum": 0,
                  "maximum": 1000,
                  "description": "CUBIC's scale constant C: how fast the rate grows back. Default 0.4."
                },
                "smoothing": {
                  "type": "number",
                  "exclusiveMinimum": 0,
                  "maximum": 1,
                  "description": "The weight of the newest bucket in the measured send rate. Default 0.8."
                },
                "measurement_interval": {
                  "$ref": "#/$defs/positiveDuration",
                  "description": "The width of the buckets the send rate is measured over. Default 500ms."
                },
                "min_rate": {
                  "type": "number",
                  "exclusiveMinimum": 0,
                  "maximum": 1000000,
                  "description": "The lowest rate, in attempts per second. Default 0.5."
                },
                "max_rate_scale": {
                  "type": "number",
                  "minimum": 1,
                  "maximum": 100,
                  "description": "How far above the measured send rate the limiter may allow. Default 2."
                },
                "max_wait": {
                  "$ref": "#/$defs/positiveDuration",
                  "description": "The longest an attempt waits for the limiter; one that would wait longer fails with budget_exhausted. Default: no limit (the AWS SDKs always wait)."
                },
                "throttling_errors": {
                  "type": "array",
                  "minItems": 1,
                  "items": {
                    "$ref": "#/$defs/errorKind"
                  },
                  "description": "The error kinds that count as throttling responses. Default [status_429]."
                }
              }
            }
          ],
          "examples": [
            "adaptive",
            {
              "mode": "adaptive",
              "max_wait": "10s"
            }
          ]
        },
        "conditions": {
          "type": "array",
          "uniqueItems": true,
          "items": {
            "$ref": "#/$defs/condition"
          },
          "description": "Outcome classes the caller's code may report besides statuses and transport failures; rules name them with `condition`.",
          "examples": [
            [
              "malformed_body"
            ]
          ]
        },
        "rules": {
          "type": "array",
          "items": {
            "$ref": "#/$defs/rule"
          },
          "description": "The decision table, in order; the first match wins."
        },
        "default": {
          "type": "object",
          "description": "What inputs no rule matches mean (a 2xx no rule matches is a success).",
          "additionalProperties": false,
          "required": [
            "error",
            "action"
          ],
          "properties": {
            "error": {
              "$ref": "#/$defs/errorKind"
            },
            "action": {
              "$ref": "#/$defs/action"
            }
          },
          "examples": [
            {
              "error": "internal_error",
              "action": "stop"
            }
          ]
        },
        "errors": {
          "type": "object",
          "description": "Declares extra error kinds and per-platform names (standard kinds may be renamed too).",
          "propertyNames": {
            "pattern": "^[a-z][a-z0-9_]{0,63}$"
          },
          "additionalProperties": {
            "oneOf": [
              {
                "type": "null"
              },
              {
                "type": "object",
                "propertyNames": {
                  "pattern": "^[a-z][a-z0-9_]{0,63}$"
                },
                "additionalProperties": {
                  "type": "string",
                  "minLength": 1
                }
              }
            ]
          },
          "examples": [
            {
              "status_429": {
                "ios": "SDKError.status_429",
                "android": "MediationError.STATUS_429"
              }
            }
          ]
        },
        "parity": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Policy files that must decide exactly like this one; lint checks it.",
          "examples": [
            [
              "android-sdk.yaml"
            ]
          ]
        }
      }
    },
    "stackFile": {
      "type": "object",
      "description": "The layers a request passes through, so lint can report retry amplification.",
      "additionalProperties": false,
      "required": [
        "version",
        "name",
        "stack"
      ],
      "properties": {
        "version": {
          "$ref": "#/$defs/version"
        },
        "name": {
          "$ref": "#/$defs/name"
        },
        "description": {
          "$ref": "#/$defs/description"
        },
        "stack": {
          "type": "array",
          "minItems": 1,
          "description": "Layers from the outermost (the app) inwards.",
          "items": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "name",
              "policy"
            ],
            "properties": {
              "name": {
                "$ref": "#/$defs/name"
              },
              "policy": {
                "type": "string",
                "description": "The layer's policy file, relative to the stack file."
              },
              "select": {
                "type": "string",
                "description": "When the layer's file is another tool's configuration that holds several retry configurations: which one (a gRPC SERVICE or SERVICE/METHOD, an Envoy route or virtual host, an Istio HTTP route or VirtualService name), as retry-policy import --select takes it."
              }
            }
          },
          "examples": [
            [
              {
                "name": "app",
                "policy": "mobile-client.yaml"
              },
              {
                "name": "sdk",
                "policy": "tmdb.yaml"
              }
            ]
          ]
        },
        "max_amplification": {
          "type": "integer",
          "minimum": 1,
          "maximum": 1000000,
          "description": "Warn above this many requests per user action. Default 10."
        }
      }
    }
  }
}

"""#
}
