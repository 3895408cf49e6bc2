#include "ui/markdown_segments.h"

namespace ts::ui {
namespace {

struct Fence {
  QChar mark;      // '`' or '~'
  int length = 0;  // 3 or more
  int indent = 0;  // 0..3 spaces before the fence
};

// The fence a line opens (or closes), if it is one: up to 3 spaces, then 3+ backticks or
// tildes. Opening backtick fences may not have a backtick in their info string.
bool parseFence(const QString& line, Fence* fence, QString* info) {
  int i = 0;
  while (i < line.size() && i < 4 && line[i] == ' ') ++i;
  if (i > 3 || i >= line.size() || (line[i] != '`' && line[i] != '~')) return false;
  const QChar mark = line[i];
  int n = 0;
  while (i + n < line.size() && line[i + n] == mark) ++n;
  if (n < 3) return false;
  const QString rest = line.mid(i + n).trimmed();
  if (mark == '`' && rest.contains('`')) return false;
  *fence = {mark, n, i};
  *info = rest;
  return true;
}

// A closing fence: the same character, at least as long, nothing after it.
bool closes(const QString& line, const Fence& open) {
  Fence f;
  QString info;
  return parseFence(line, &f, &info) && f.mark == open.mark && f.length >= open.length &&
         info.isEmpty();
}

// A code line inside a fence loses up to the opening fence's indentation.
QString unindent(const QString& line, int indent) {
  int i = 0;
  while (i < indent && i < line.size() && line[i] == ' ') ++i;
  return line.mid(i);
}

}  // namespace

QList<MarkdownSegment> splitFencedCode(const QString& markdown) {
  QList<MarkdownSegment> out;
  MarkdownSegment prose;
  // Lines keep their '\n' so that the sources concatenate back to the input exactly.
  QStringList lines;
  for (qsizetype start = 0; start < markdown.size();) {
    const qsizetype end = markdown.indexOf('\n', start);
    const qsizetype next = end < 0 ? markdown.size() : end + 1;
    lines << markdown.mid(start, next - start);
    start = next;
  }
  const auto chomp = [](const QString& line) {
    return line.endsWith('\n') ? line.chopped(1) : line;
  };
  for (qsizetype i = 0; i < lines.size(); ++i) {
    Fence fence;
    QString info;
    if (!parseFence(chomp(lines[i]), &fence, &info)) {
      prose.source += lines[i];
      continue;
    }
    if (!prose.source.isEmpty()) out << std::exchange(prose, MarkdownSegment{});
    MarkdownSegment code;
    code.is_code = true;
    code.language = info.section(' ', 0, 0);
    code.source = lines[i];
    QStringList body;
    for (++i; i < lines.size(); ++i) {
      code.source += lines[i];
      if (closes(chomp(lines[i]), fence)) break;
      body << unindent(chomp(lines[i]), fence.indent);
    }
    code.code = body.join('\n');
    out << code;
  }
  if (!prose.source.isEmpty()) out << prose;
  return out;
}

}  // namespace ts::ui
