#include "inference/remote/sse_parser.h"

#include <algorithm>

namespace ts {
namespace {
constexpr std::string_view kBom = "\xEF\xBB\xBF";
}

void SseParser::feed(std::string_view bytes, std::vector<SseEvent>& out) {
  bytes_fed_ += bytes.size();
  if (!bom_checked_) {
    // Collect up to three bytes, so a BOM split across feeds is still recognised.
    while (!bytes.empty() && bom_probe_.size() < kBom.size()) {
      bom_probe_.push_back(bytes.front());
      bytes.remove_prefix(1);
      if (kBom.substr(0, bom_probe_.size()) != bom_probe_) break;
    }
    if (bom_probe_.size() < kBom.size() && kBom.substr(0, bom_probe_.size()) == bom_probe_)
      return;  // still a possible BOM prefix: wait for more bytes
    bom_checked_ = true;
    std::string probe;
    probe.swap(bom_probe_);
    if (probe != kBom) consume(probe, out);
  }
  consume(bytes, out);
}

void SseParser::consume(std::string_view bytes, std::vector<SseEvent>& out) {
  size_t i = 0;
  if (last_was_cr_ && !bytes.empty()) {
    if (bytes[0] == '\n') i = 1;  // the LF of a CRLF split across feeds
    last_was_cr_ = false;
  }
  while (i < bytes.size()) {
    const auto begin = bytes.begin() + static_cast<std::ptrdiff_t>(i);
    const auto end_of_line =
        std::find_if(begin, bytes.end(), [](char c) { return c == '\n' || c == '\r'; });
    const size_t stop = static_cast<size_t>(end_of_line - bytes.begin());
    if (end_of_line == bytes.end()) {
      line_.append(bytes.substr(i));
      return;
    }
    std::string_view line = bytes.substr(i, stop - i);
    if (!line_.empty()) {
      line_.append(line);
      processLine(line_, out);
      line_.clear();
    } else {
      processLine(line, out);
    }
    i = stop + 1;
    if (*end_of_line == '\r') {
      if (i < bytes.size()) {
        if (bytes[i] == '\n') ++i;
      } else {
        last_was_cr_ = true;
      }
    }
  }
}

void SseParser::processLine(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {
    dispatch(out);
    return;
  }
  if (line.front() == ':') {
    ++comments_;
    return;
  }
  std::string_view field = line;
  std::string_view value;
  if (const size_t colon = line.find(':'); colon != std::string_view::npos) {
    field = line.substr(0, colon);
    value = line.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    data_.append(value);
    data_.push_back('\n');
    has_data_ = true;
  } else if (field == "event") {
    type_.assign(value);
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
  } else if (field == "retry") {
    if (!value.empty() && value.size() <= 18 &&
        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      int64_t ms = 0;
      for (char c : value) ms = ms * 10 + (c - '0');
      retry_ = ms;
    }
  }
  // Any other field name is ignored, as the specification requires.
}

void SseParser::dispatch(std::vector<SseEvent>& out) {
  if (has_data_) {
    SseEvent e;
    e.type = type_.empty() ? "message" : type_;
    data_.pop_back();  // the '\n' after the last data line
    e.data = std::move(data_);
    e.id = last_id_;
    e.retry_ms = retry_;
    out.push_back(std::move(e));
    retry_.reset();
  }
  data_.clear();
  has_data_ = false;
  type_.clear();
}

void SseParser::finish(std::vector<SseEvent>& out) {
  if (!bom_checked_ && !bom_probe_.empty()) {
    bom_checked_ = true;
    std::string probe;
    probe.swap(bom_probe_);
    if (probe != kBom) consume(probe, out);
  }
  line_.clear();
  dispatch(out);
}

}  // namespace ts
