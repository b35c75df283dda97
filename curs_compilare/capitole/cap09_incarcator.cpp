// Programul C++ al capitolului 09: încarcă un pachet AOTInductor (.pt2) cu
// torch::inductor::AOTIModelPackageLoader, fără Python, și rulează modelul pe o intrare.
//
// Folosire: incarcator PACHET.pt2 INTRARE.bin IESIRE.bin
//
// Fișierele .bin au formatul cel mai simplu care se poate citi din ambele limbaje (îl scrie și îl
// citește și `curs_compilare.capitole.cap09_export`): numărul de dimensiuni (int64), codul tipului
// (int64: 0 float32, 1 int64), dimensiunile (int64 fiecare), apoi valorile, în ordinea obișnuită
// (rând după rând). Ieșirea se scrie mereu ca float32.
// Pe ecran scrie, câte unul pe rând, „cheie valoare”: dispozitivul pachetului, forma ieșirii și
// timpul unui apel, în milisecunde (le citește și le scrie frumos `cap09_export`).

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

// Doar antetele de care are nevoie programul: <torch/torch.h> (tot API-ul C++) ar triplica timpul
// compilării (măsurat cu g++ 12 și torch 2.14: ~14 s de procesor în loc de ~5 s), fără să aducă nimic
// folosit aici.
#include <ATen/ops/empty.h>
#include <c10/core/InferenceMode.h>
#include <torch/cuda.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

static at::Tensor citeste(const std::string& cale) {
  std::ifstream f(cale, std::ios::binary);
  if (!f) throw std::runtime_error("nu pot deschide " + cale);
  int64_t dimensiuni = 0, cod = 0;
  f.read(reinterpret_cast<char*>(&dimensiuni), sizeof dimensiuni);
  f.read(reinterpret_cast<char*>(&cod), sizeof cod);
  if (cod != 0 && cod != 1) throw std::runtime_error("cod de tip necunoscut în " + cale);
  std::vector<int64_t> forma(dimensiuni);
  f.read(reinterpret_cast<char*>(forma.data()), dimensiuni * sizeof(int64_t));
  at::Tensor t = at::empty(forma, cod == 0 ? at::kFloat : at::kLong);
  f.read(reinterpret_cast<char*>(t.data_ptr()), t.numel() * t.element_size());
  if (!f) throw std::runtime_error("fișierul " + cale + " e mai scurt decât spune forma lui");
  return t;
}

static void scrie(const std::string& cale, at::Tensor t) {
  t = t.to(at::kCPU).to(at::kFloat).contiguous();
  std::ofstream f(cale, std::ios::binary);
  int64_t dimensiuni = t.dim(), cod = 0;
  f.write(reinterpret_cast<const char*>(&dimensiuni), sizeof dimensiuni);
  f.write(reinterpret_cast<const char*>(&cod), sizeof cod);
  for (int64_t d : t.sizes()) f.write(reinterpret_cast<const char*>(&d), sizeof d);
  f.write(reinterpret_cast<const char*>(t.data_ptr<float>()), t.numel() * sizeof(float));
}

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "folosire: " << argv[0] << " PACHET.pt2 INTRARE.bin IESIRE.bin\n";
    return 2;
  }
  try {
    c10::InferenceMode fara_gradienti;
    torch::inductor::AOTIModelPackageLoader incarcator(argv[1]);
    auto metadate = incarcator.get_metadata();
    std::string dispozitiv = metadate.count("AOTI_DEVICE_KEY") ? metadate["AOTI_DEVICE_KEY"] : "cpu";
    at::Tensor x = citeste(argv[2]).to(at::Device(dispozitiv));
    auto inceput = std::chrono::steady_clock::now();
    std::vector<at::Tensor> iesiri = incarcator.run({x});
    if (dispozitiv == "cuda") torch::cuda::synchronize();
    auto sfarsit = std::chrono::steady_clock::now();
    scrie(argv[3], iesiri.at(0));
    std::cout << "dispozitiv " << dispozitiv << "\n"
              << "forma " << iesiri.at(0).sizes() << "\n"
              << "timp_apel_ms " << std::chrono::duration<double, std::milli>(sfarsit - inceput).count()
              << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "eroare: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
