#include "ui/metrics_strip.h"

#include <QHBoxLayout>
#include <QVBoxLayout>

#include "ui/format.h"

namespace ts::ui {

MetricsStrip::MetricsStrip(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
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
  layout->addStretch(1);
  clear();
}

QLabel* MetricsStrip::addField(const QString& name, const QString& object_name,
                               const QString& definition) {
  auto* box = new QWidget(this);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(6, 0, 6, 0);
  v->setSpacing(0);
  auto* caption = new QLabel(name, box);
  caption->setStyleSheet("color: palette(mid); font-size: small;");
  auto* value = new QLabel(box);
  value->setObjectName(object_name);
  value->setStyleSheet("font-weight: bold;");
  value->setTextInteractionFlags(Qt::TextSelectableByMouse);
  v->addWidget(caption);
  v->addWidget(value);
  box->setToolTip(definition);
  static_cast<QHBoxLayout*>(layout())->addWidget(box);
  return value;
}

void MetricsStrip::showMetrics(const RunMetrics& m) {
  ttft_->setText(formatDurationNs(m.ttft_ns ? std::optional<double>(*m.ttft_ns) : std::nullopt));
  tpot_->setText(formatDurationNs(m.tpot_ns));
  decode_rate_->setText(formatRate(m.decode_tok_s));
  overall_rate_->setText(formatRate(m.overall_tok_s));
  const QString source = m.output_tokens_source == TokenCountSource::Usage       ? tr("usage")
                         : m.output_tokens_source == TokenCountSource::Tokenizer ? tr("tokenizer")
                                                                                 : tr("chunks");
  output_tokens_->setText(QString("%1 (%2)").arg(m.output_tokens).arg(source));
  e2e_->setText(formatDurationNs(m.e2e_ns ? std::optional<double>(*m.e2e_ns) : std::nullopt));
  QString prompt = m.prompt_tokens ? tr("%1 tok").arg(*m.prompt_tokens) : QString("—");
  if (m.prompt_tokens && m.cached_tokens && *m.cached_tokens > 0)
    prompt += ", " + tr("%1 cached").arg(*m.cached_tokens);
  if (m.prefill_ns)
    prompt += " · " + tr("prefill %1").arg(formatDurationNs(static_cast<double>(*m.prefill_ns)));
  prompt_->setText(prompt);
  if (m.acceptance_rate) {
    QString hist;
    for (size_t n = 0; n < m.accepted_histogram.size(); ++n)
      if (m.accepted_histogram[n] > 0)
        hist += QString(" %1:%2").arg(n).arg(m.accepted_histogram[n]);
    acceptance_->setText(QString("%1% (%2/%3) ·%4")
                             .arg(100 * *m.acceptance_rate, 0, 'f', 0)
                             .arg(m.accepted_tokens)
                             .arg(m.drafted_tokens)
                             .arg(hist));
  } else {
    acceptance_->setText("—");
  }
  if (m.itl_ns.empty()) {
    itl_->setText("—");
  } else {
    std::vector<double> gaps(m.itl_ns.begin(), m.itl_ns.end());
    const Summary s = summarize(std::move(gaps));
    itl_->setText(formatDurationNs(s.p50) + " / " + formatDurationNs(s.p99));
  }
}

void MetricsStrip::clear() {
  for (QLabel* l : {ttft_, tpot_, decode_rate_, overall_rate_, output_tokens_, e2e_, itl_, prompt_,
                    acceptance_})
    l->setText("—");
}

}  // namespace ts::ui
