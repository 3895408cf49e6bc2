#include "ui/run_display.h"

#include "ui/acceptance_chart.h"
#include "ui/chat_panel.h"
#include "ui/latency_chart.h"
#include "ui/metrics_strip.h"

namespace ts::ui {
namespace {
constexpr int kFrameMs = 16;     // text: one update per ~60 Hz frame while streaming
constexpr qint64 kChartMs = 50;  // chart and metrics: at most 20 updates per second
}  // namespace

RunDisplay::RunDisplay(ChatPanel* chat, LatencyChart* chart, AcceptanceChart* acceptance,
                       MetricsStrip* metrics, QObject* parent)
    : QObject(parent), chat_(chat), chart_(chart), acceptance_(acceptance), metrics_(metrics) {
  frame_timer_.setSingleShot(true);
  frame_timer_.setInterval(kFrameMs);
  connect(&frame_timer_, &QTimer::timeout, this, &RunDisplay::flushFrame);
}

void RunDisplay::begin(const QString& label) {
  chat_->clearInput();
  chat_->beginAssistantMessage(label);
  chat_->setBusy(true);
  recorder_.clear();
  pending_text_.clear();
  clear();
  chart_clock_.invalidate();
  running_ = true;
}

void RunDisplay::clear() {
  chart_->reset();
  acceptance_->reset();
  metrics_->clear();
}

void RunDisplay::onStreamEvent(const StreamEvent& event) {
  if (!running_) return;
  recorder_.record(event);
  if (event.kind == EventKind::TokenChunk) {
    const QString text = QString::fromStdString(event.text);
    if (!pending_text_.isEmpty() && pending_text_.back().second == event.drafted)
      pending_text_.back().first += text;
    else
      pending_text_.append({text, event.drafted});
  }
  if (event.kind == EventKind::Finished || event.kind == EventKind::Failed) {
    frame_timer_.stop();
    flushFrame();
    finish(event);
    return;
  }
  if (!frame_timer_.isActive()) frame_timer_.start();
}

void RunDisplay::flushFrame() {
  for (const auto& [text, drafted] : pending_text_) chat_->appendAssistantText(text, drafted);
  pending_text_.clear();
  const bool final_frame = recorder_.hasTerminal();
  if (!final_frame && chart_clock_.isValid() && chart_clock_.elapsed() < kChartMs) {
    if (!frame_timer_.isActive()) frame_timer_.start();  // the chart catches up next frame
    return;
  }
  chart_clock_.start();
  chart_->appendFrom(recorder_.run());
  metrics_->showMetrics(computeMetrics(recorder_.run()));
}

void RunDisplay::finish(const StreamEvent& end) {
  running_ = false;
  acceptance_->showHistogram(computeMetrics(recorder_.run()).accepted_histogram);
  chat_->setBusy(false);
  chat_->finishAssistantMessage();
  emit answered(chat_->lastAssistantText());
  if (end.kind == EventKind::Failed) {
    const QString message = QString::fromStdString(end.text);
    if (end.failure == FailureKind::Device)  // the GPU failed: one click moves to the CPU
      chat_->endAssistantMessage(message, true, "tokenscope:use-cpu",
                                 tr("Run this provider on the CPU"));
    else
      chat_->endAssistantMessage(message, true);
    emit status(tr("Failed: ") + message);
  } else if (end.text == "cancelled") {
    chat_->endAssistantMessage(tr("Stopped — the partial answer is kept."), false);
    emit status(tr("Stopped."));
  } else {
    if (end.text == "length")
      chat_->endAssistantMessage(tr("Stopped at max_tokens (finish_reason: length)."), false);
    emit status(tr("Done (finish_reason: %1).").arg(QString::fromStdString(end.text)));
  }
  emit finished();
}

}  // namespace ts::ui
