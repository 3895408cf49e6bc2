#include "app/desktop/about_box.h"

#include "inference/engine/backend/backend_loader.h"
#include "ui/about_dialog.h"

namespace ts {

void AboutBox::show(QWidget* parent) {
  const engine::CudaAvailability cuda = engine::probeCuda();
  const auto cudaVersion = [](int v) { return QString("%1.%2").arg(v / 1000).arg(v % 1000 / 10); };
  QString gpu;
  if (cuda.usable) {
    QStringList devices;
    for (const auto& d : cuda.devices) devices << QString::fromStdString(d.name);
    gpu = tr("CUDA driver %1, runtime %2: %3")
              .arg(cudaVersion(cuda.driver_version), cudaVersion(cuda.runtime_version),
                   devices.join(", "));
  } else {
    gpu = tr("CUDA: not used (%1)").arg(QString::fromStdString(cuda.reason));
  }
  ui::showAboutDialog(
      parent, tr("About TokenScope"),
      tr("<b>TokenScope %1</b><br>An LLM inference playground: chat, "
         "measure every token, compare and benchmark.")
          .arg(TOKENSCOPE_VERSION),
      tr("Qt %1 (built with %2)<br>sentencepiece %3<br>%4")
          .arg(qVersion(), QT_VERSION_STR, TOKENSCOPE_SENTENCEPIECE_VERSION, gpu.toHtmlEscaped()));
}

}  // namespace ts
