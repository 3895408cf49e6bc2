// Splits a Markdown answer into prose and fenced code blocks (``` or ~~~, CommonMark
// rules for fences at the top level), so each code block can get its own Copy button
// while everything is still rendered by Qt's Markdown reader.
#pragma once
#include <QList>
#include <QString>

namespace ts::ui {

struct MarkdownSegment {
  bool is_code = false;
  QString source;    // the Markdown of this segment, fences included (what gets rendered)
  QString code;      // code blocks: the code alone, without fences (what Copy copies)
  QString language;  // code blocks: the info string's first word, e.g. "cpp"; may be empty
};

// Prose and code segments in order; concatenating every `source` gives back `markdown`.
// An unclosed fence runs to the end of the text, as CommonMark says (a streaming answer
// cut off by max_tokens still shows its code as code).
QList<MarkdownSegment> splitFencedCode(const QString& markdown);

}  // namespace ts::ui
