// JSON shapes of the OpenAI chat completions API: the request body we send and the
// chunk / completion / error bodies we receive. Pure functions over bytes.
#pragma once
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>
#include <string>

#include "inference/stream/generation_request.h"

namespace ts {

QByteArray buildChatRequestBody(const GenerationRequest& request, bool include_stream_options);

struct ChatBody {
  bool valid_json = false;  // false: `parse_error` says why
  QString parse_error;
  std::string content;        // delta.content (stream) or message.content (non-stream)
  std::string finish_reason;  // empty until the server sends one
  std::optional<int64_t> prompt_tokens;
  std::optional<int64_t> cached_tokens;  // usage.prompt_tokens_details.cached_tokens
  std::optional<int64_t> completion_tokens;
  QString api_error;  // {"error": {"message": ...}} sent in place of a chunk
};

ChatBody parseChatChunk(std::string_view json);       // one `data:` of a stream
ChatBody parseChatCompletion(std::string_view json);  // a whole non-streaming body

// The human-readable message of an error body ({"error": {"message"}}, {"message"},
// {"detail"}), else the body itself cut to 300 characters.
QString apiErrorMessage(const QByteArray& body);
// True when an error body says the requested model does not exist.
bool bodySaysModelNotFound(const QByteArray& body);
// The ids in a GET /v1/models body ({"data": [{"id": ...}]}).
QStringList parseModelIds(const QByteArray& body);

}  // namespace ts
