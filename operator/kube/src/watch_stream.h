#pragma once
// The WatchStream of the REST client (private to operator/kube).
#include <memory>
#include <string>

#include "http_transport.h"

namespace ods::kube::detail {

// Opens GET <path_and_query> (a ?watch=true query) and returns a stream reading its events.
ApiResult<std::unique_ptr<WatchStream>> open_watch(HttpTransport& transport, const std::string& path_and_query,
                                                   std::chrono::seconds timeout);

// One line of a watch body as an event; an ApiError (reason "BadEvent") when it is not one.
ApiResult<WatchEvent> parse_watch_event(const std::string& line, const std::string& path);

}  // namespace ods::kube::detail
