#include "ui/metrics_strip.h"

#include <QGridLayout>
#include <QResizeEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>

#include "ui/format.h"

namespace ts::ui {
namespace {
constexpr int kFewestColumns = 3;  // at most 3 rows of fields, however narrow
constexpr int kWidestField = 260;  // px; a longer value is cut (whole on hover)
}  // namespace

MetricsStrip::MetricsStrip(QWidget* parent) : QWidget(parent) {
  grid_ = new QGridLayout(this);
  grid_->setContentsMargins(4, 2, 4, 2);
  grid_->setHorizontalSpacing(0);
  grid_->setVerticalSpacing(2);
  ttft_ = addField("TTFT", "ttftValue",
                   tr("Time to first token: first chunk with non-empty content − request start."));
  tpot_ = addField("TPOT", "tpotValue",
                   tr("Time per output token: (E2E − TTFT) / (output tokens − 1); only for more "
                      "than one output token."));
  decode_rate_ = addField(tr("Decode"), "decodeRateValue",
                          tr("Decode rate: (output tokens − 1) / (E2E − TTFT) = 1 / TPOT."));
  overall_rate_ = addField(tr("Overall"), "overallRateValue",
                           tr("Overall rate: output tokens / E2E (includes the wait for the first "
                              "token)."));
  output_tokens_ = addField(tr("Output"), "outputTokensValue",
                            tr("Output tokens: usage.completion_tokens when the server sends it; "
                               "else the local tokenizer's count; else the number of chunks."));
  e2e_ = addField("E2E", "e2eValue",
                  tr("End to end: last content chunk − request start (a trailing usage chunk does "
                     "not extend it)."));
  itl_ = addField(tr("ITL p50 / p99"), "itlValue",
                  tr("Inter-token latency: gaps between consecutive content chunks (per chunk)."));
  acceptance_ =
      addField(tr("Acceptance"), "acceptanceValue",
               tr("Speculative runs: accepted draft tokens / drafted tokens, then the steps "
                  "by number of accepted drafts (n:steps)."));
  prompt_ =
      addField(tr("Prompt"), "promptValue",
               tr("Prompt tokens (usage.prompt_tokens) and, for the local engine, the time of "
                  "the prompt pass (prefill), which TTFT includes."));
  clear();
}

void MetricsStrip::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  arrange(event->size().width());
}

void MetricsStrip::arrange(int width) {
  // The most columns whose fields fit whole side by side (each column as wide as its
  // widest field, a field at most kWidestField); the fields wrap into rows below.
  const int n = static_cast<int>(boxes_.size());
  const QMargins m = grid_->contentsMargins();
  const int room = width - m.left() - m.right();
  const auto columnWidths = [&](int k) {
    std::vector<int> widths(k, 0);
    for (int i = 0; i < n; ++i)
      widths[i % k] =
          std::max(widths[i % k], std::min(kWidestField, boxes_[i]->sizeHint().width()));
    return widths;
  };
  const auto sum = [](const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); };
  int columns = kFewestColumns;
  for (int k = n; k > kFewestColumns; --k)
    if (sum(columnWidths(k)) <= room) {
      columns = k;
      break;
    }
  std::vector<int> widths = columnWidths(columns);
  // Too narrow even for the fewest columns: the widest columns give way first, down to a
  // common cap (their long values cut with "…", whole on hover); the short ones stay whole.
  int cap = *std::max_element(widths.begin(), widths.end());
  const auto capped = [&](int c) {
    int total = 0;
    for (int w : widths) total += std::min(w, c);
    return total;
  };
  while (cap > 1 && capped(cap) > room) --cap;  // at most kWidestField steps
  for (int& w : widths) w = std::min(w, cap);
  // Each field at most its column's width: a long value's size hint never takes the room
  // of the short fields beside it (the grid would squeeze them to their minimum instead).
  for (int i = 0; i < n; ++i) boxes_[i]->setMaximumWidth(std::max(1, widths[i % columns]));
  if (columns == columns_) return;
  columns_ = columns;
  for (QWidget* box : boxes_) grid_->removeWidget(box);
  for (int i = 0; i < n; ++i) grid_->addWidget(boxes_[i], i / columns, i % columns);
  for (int c = 0; c <= n; ++c) grid_->setColumnStretch(c, c == columns ? 1 : 0);  // pack left
}

ElidedLabel* MetricsStrip::addField(const QString& name, const QString& object_name,
                                    const QString& definition) {
  auto* box = new QWidget(this);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(6, 0, 6, 0);
  v->setSpacing(0);
  auto* caption = new QLabel(name, box);
  caption->setStyleSheet("color: palette(mid); font-size: small;");
  caption->setMinimumWidth(1);  // a narrow field may cut its caption too, never the window
  auto* value = new ElidedLabel(box);
  value->setObjectName(object_name);
  value->setHint(definition);
  value->setStyleSheet("font-weight: bold;");
  value->setTextInteractionFlags(Qt::TextSelectableByMouse);
  v->addWidget(caption);
  v->addWidget(value);
  box->setToolTip(definition);
  boxes_.push_back(box);
  return value;
}

void MetricsStrip::showMetrics(const RunMetrics& m) {
  ttft_->setFullText(
      formatDurationNs(m.ttft_ns ? std::optional<double>(*m.ttft_ns) : std::nullopt));
  tpot_->setFullText(formatDurationNs(m.tpot_ns));
  decode_rate_->setFullText(formatRate(m.decode_tok_s));
  overall_rate_->setFullText(formatRate(m.overall_tok_s));
  const QString source = m.output_tokens_source == TokenCountSource::Usage       ? tr("usage")
                         : m.output_tokens_source == TokenCountSource::Tokenizer ? tr("tokenizer")
                                                                                 : tr("chunks");
  output_tokens_->setFullText(QString("%1 (%2)").arg(m.output_tokens).arg(source));
  e2e_->setFullText(formatDurationNs(m.e2e_ns ? std::optional<double>(*m.e2e_ns) : std::nullopt));
  QString prompt = m.prompt_tokens ? tr("%1 tok").arg(*m.prompt_tokens) : QString("—");
  if (m.prompt_tokens && m.cached_tokens && *m.cached_tokens > 0)
    prompt += ", " + tr("%1 cached").arg(*m.cached_tokens);
  if (m.prefill_ns)
    prompt += " · " + tr("prefill %1").arg(formatDurationNs(static_cast<double>(*m.prefill_ns)));
  prompt_->setFullText(prompt);
  if (m.acceptance_rate) {
    QString hist;
    for (size_t n = 0; n < m.accepted_histogram.size(); ++n)
      if (m.accepted_histogram[n] > 0)
        hist += QString(" %1:%2").arg(n).arg(m.accepted_histogram[n]);
    acceptance_->setFullText(QString("%1% (%2/%3) ·%4")
                                 .arg(100 * *m.acceptance_rate, 0, 'f', 0)
                                 .arg(m.accepted_tokens)
                                 .arg(m.drafted_tokens)
                                 .arg(hist));
  } else {
    acceptance_->setFullText("—");
  }
  if (m.itl_ns.empty()) {
    itl_->setFullText("—");
  } else {
    std::vector<double> gaps(m.itl_ns.begin(), m.itl_ns.end());
    const Summary s = summarize(std::move(gaps));
    itl_->setFullText(formatDurationNs(s.p50) + " / " + formatDurationNs(s.p99));
  }
  arrange(width());  // the values' widths changed
}

void MetricsStrip::clear() {
  for (ElidedLabel* l : {ttft_, tpot_, decode_rate_, overall_rate_, output_tokens_, e2e_, itl_,
                         prompt_, acceptance_})
    l->setFullText("—");
  arrange(width());
}

}  // namespace ts::ui
