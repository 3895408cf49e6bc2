#include "app/compare/comparison.h"

#include <QJsonDocument>

#include <QJsonArray>
#include <numeric>

#include "app/store/run_json.h"

namespace ts {
namespace {

std::optional<double> meanOf(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The settings a comparison shows, in order: name and how to read it from a run.
QList<QPair<QString, QString>> settingsOf(const StoredRun& r) {
  const SamplingParams& p = r.request.params;
  const auto userMessages = [&] {
    for (auto it = r.request.messages.rbegin(); it != r.request.messages.rend(); ++it)
      if (it->role == "user") return QString::fromStdString(it->content);
    return QString();
  };
  return {{"provider", r.context.provider},
          {"base_url", r.context.base_url},
          {"model", r.context.model},
          {"backend", r.context.backend},
          {"weights", r.context.weights},
          {"kv_cache", r.context.kv},
          {"speculative", r.context.speculative},
          {"temperature", QString::number(p.temperature)},
          {"top_p", QString::number(p.top_p)},
          {"top_k", QString::number(p.top_k)},
          {"repetition_penalty", QString::number(p.repetition_penalty)},
          {"max_tokens", QString::number(p.max_tokens)},
          {"stream", p.stream ? "true" : "false"},
          {"seed", p.seed ? QString::number(*p.seed) : QString()},
          {"prompt", userMessages()},
          {"cpu", r.environment.value("cpu").toString()},
          {"gpu", r.environment.value("gpu").toString()},
          {"app_version", r.environment.value("app_version").toString()}};
}

QJsonValue orNull(const std::optional<double>& v) {
  return v ? QJsonValue(*v) : QJsonValue();
}

}  // namespace

ComparedSeries compareRuns(const QString& label, const std::vector<StoredRun>& runs) {
  ComparedSeries s;
  s.label = label;
  std::vector<double> ttft, tpot, itl, e2e, decode, overall, prefill, acceptance;
  for (const StoredRun& r : runs) {
    s.run_ids << r.id;
    const RunMetrics m = computeMetrics(r.run);
    const StreamEvent* end = r.run.terminal();
    (end && end->kind == EventKind::Finished ? s.completed : s.failed)++;
    if (m.ttft_ns) ttft.push_back(*m.ttft_ns / 1e6);
    if (m.tpot_ns) tpot.push_back(*m.tpot_ns / 1e6);
    if (m.e2e_ns) e2e.push_back(*m.e2e_ns / 1e6);
    for (int64_t gap : m.itl_ns) itl.push_back(gap / 1e6);
    if (m.decode_tok_s) decode.push_back(*m.decode_tok_s);
    if (m.overall_tok_s) overall.push_back(*m.overall_tok_s);
    if (m.prefill_ns) prefill.push_back(*m.prefill_ns / 1e6);
    if (m.acceptance_rate) acceptance.push_back(*m.acceptance_rate);
    s.output_tokens += m.output_tokens;
  }
  s.ttft_ms = summarize(ttft);
  s.tpot_ms = summarize(tpot);
  s.itl_ms = summarize(itl);
  s.e2e_ms = summarize(e2e);
  s.decode_tok_s = meanOf(decode);
  s.overall_tok_s = meanOf(overall);
  s.prefill_ms = meanOf(prefill);
  s.acceptance_rate = meanOf(acceptance);
  if (!runs.empty()) {
    s.first = runs.front();
    const RecordedRun& run = runs.front().run;
    int64_t previous = -1;
    for (const StreamEvent& e : run.events) {
      if (e.kind != EventKind::TokenChunk) continue;
      if (e.batch > 0) s.batch_curve << QPointF((e.t_ns - run.start_ns) / 1e9, e.batch);
      if (e.text.empty()) continue;
      if (previous >= 0)
        s.itl_curve << QPointF((e.t_ns - run.start_ns) / 1e9, (e.t_ns - previous) / 1e6);
      previous = e.t_ns;
    }
  }
  return s;
}

QList<QPair<QString, QStringList>> differingSettings(const QList<ComparedSeries>& series) {
  QList<QPair<QString, QStringList>> out;
  if (series.isEmpty()) return out;
  const auto names = settingsOf(series.front().first);
  for (int i = 0; i < names.size(); ++i) {
    QStringList values;
    for (const ComparedSeries& s : series) values << settingsOf(s.first).at(i).second;
    if (values.count(values.front()) != values.size()) out.append({names[i].first, values});
  }
  return out;
}

QString comparisonCsv(const QList<ComparedSeries>& series) {
  const auto field = [](QString text) {  // RFC 4180: quote when needed, double the quotes
    if (text.contains(',') || text.contains('"') || text.contains('\n'))
      text = '"' + text.replace("\"", "\"\"") + '"';
    return text;
  };
  QString csv = "series,metric,mean,p50,p90,p99,count\n";
  for (const ComparedSeries& s : series) {
    for (auto [name, m] : {std::pair{"ttft_ms", s.ttft_ms}, std::pair{"tpot_ms", s.tpot_ms},
                           std::pair{"itl_ms", s.itl_ms}, std::pair{"e2e_ms", s.e2e_ms}})
      csv += QString("%1,%2,%3,%4,%5,%6,%7\n")
                 .arg(field(s.label), name)
                 .arg(m.mean, 0, 'g', 10)
                 .arg(m.p50, 0, 'g', 10)
                 .arg(m.p90, 0, 'g', 10)
                 .arg(m.p99, 0, 'g', 10)
                 .arg(m.count);
    for (auto [name, v] :
         {std::pair{"decode_tok_s", s.decode_tok_s}, std::pair{"overall_tok_s", s.overall_tok_s},
          std::pair{"prefill_ms", s.prefill_ms}, std::pair{"acceptance_rate", s.acceptance_rate}})
      if (v) csv += QString("%1,%2,%3,,,,\n").arg(field(s.label), name).arg(*v, 0, 'g', 10);
  }
  return csv;
}

QJsonObject comparisonJson(const QList<ComparedSeries>& series) {
  QJsonArray out;
  for (const ComparedSeries& s : series) {
    QJsonArray ids;
    for (qint64 id : s.run_ids) ids.append(id);
    QJsonObject o{{"label", s.label},
                  {"runs", ids},
                  {"completed", s.completed},
                  {"failed", s.failed},
                  {"total_output_tokens", static_cast<qint64>(s.output_tokens)},
                  {"decode_tok_s", orNull(s.decode_tok_s)},
                  {"overall_tok_s", orNull(s.overall_tok_s)},
                  {"prefill_ms", orNull(s.prefill_ms)},
                  {"acceptance_rate", orNull(s.acceptance_rate)}};
    for (auto [name, m] : {std::pair{"ttft", s.ttft_ms}, std::pair{"tpot", s.tpot_ms},
                           std::pair{"itl", s.itl_ms}, std::pair{"e2el", s.e2e_ms}}) {
      o.insert(QString("mean_%1_ms").arg(name), m.mean);
      o.insert(QString("median_%1_ms").arg(name), m.p50);
      o.insert(QString("p90_%1_ms").arg(name), m.p90);
      o.insert(QString("p99_%1_ms").arg(name), m.p99);
    }
    QJsonObject settings;
    for (const auto& [name, value] : settingsOf(s.first)) settings.insert(name, value);
    o.insert("settings", settings);
    o.insert("environment", s.first.environment);
    out.append(o);
  }
  return {{"series", out}};
}

ui::ComparisonContent comparisonContent(const QList<ComparedSeries>& series) {
  ui::ComparisonContent content;
  for (const ComparedSeries& s : series) content.series << s;
  content.differing_settings = differingSettings(series);
  content.csv = comparisonCsv(series);
  content.json = QJsonDocument(comparisonJson(series)).toJson(QJsonDocument::Indented);
  return content;
}

}  // namespace ts
