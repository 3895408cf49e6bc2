// Shows one run as it streams: text into the chat panel once per frame (~60 Hz), the
// latency chart and metrics strip at most 20 times a second, and the run's end (why it
// stopped, the acceptance histogram). 1,000 tokens/s do not flood the UI.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include "inference/stream/metrics.h"
#include "inference/stream/run_recorder.h"

namespace ts::ui {

class AcceptanceChart;
class ChatPanel;
class LatencyChart;
class MetricsStrip;

class RunDisplay : public QObject {
  Q_OBJECT
 public:
  RunDisplay(ChatPanel* chat, LatencyChart* chart, AcceptanceChart* acceptance,
             MetricsStrip* metrics, QObject* parent = nullptr);
  // A new answer under `label` ("model · provider"): the charts and metrics start over.
  void begin(const QString& label);
  void onStreamEvent(const StreamEvent& event);
  void clear();  // charts and metrics empty (a new chat)
  bool isRunning() const { return running_; }
  const RecordedRun& run() const { return recorder_.run(); }

 signals:
  void answered(const QString& answer);  // the run's answer text ("" none), before `finished`
  void finished();                       // the terminal event has been painted
  void status(const QString& message);

 private:
  void flushFrame();
  void finish(const StreamEvent& end);

  ChatPanel* chat_;
  LatencyChart* chart_;
  AcceptanceChart* acceptance_;
  MetricsStrip* metrics_;
  RunRecorder recorder_;                      // the run being displayed
  QList<QPair<QString, bool>> pending_text_;  // (text, drafted) arrived since the last frame
  QTimer frame_timer_;
  QElapsedTimer chart_clock_;  // since the chart and metrics were last refreshed
  bool running_ = false;
};

}  // namespace ts::ui
