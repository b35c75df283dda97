"""Pachetul de ajutor al cursului „Compilarea în PyTorch 2”, pe roluri.

**Nucleul de măsurare** (aici, la nivelul de sus), folosit de toate capitolele:
- `mediu` — ce mașină rulează cursul (CPU/GPU/Colab, un T4 simulat) și profilul de dimensiuni;
- `masurare` — măsurători corecte (`compara`: variante măsurate intercalat, în runde, cu ceasul
  ales după cât așteaptă GPU-ul, mediană și împrăștiere), ocuparea GPU-ului, GB/s și TFLOP/s,
  kernel-uri numărate, plafonul de copiere;
- `masurare_compilare` — timpul compilării, fără taxa fixă a procesului și cu un cache gol;
- `amortizare` — după câte apeluri se amortizează o compilare;
- `concluzii` — propozițiile tipărite din măsurători („mai rapid”, „la fel”, „mai lent”);
- `cifre` — formatul numerelor, cifrele-cheie ale capitolelor și rezultatele de referință;
- `grafice` — graficele comune, cu etichete în română, și ilustrațiile bucătăriei;
- `explorator` — exploratoare ipywidgets (7.7 și 8);
- `inspectie` — ce face `torch.compile` dedesubt: jurnale, grafuri capturate, recompilări;
- `modele` — `ReteaTransformer`, modelul cursului, cu loturi și un pas de antrenare.

**Uneltele capitolelor** (`capitole/`): câte un modul pe capitol, cu numărul lui în nume
(`cap05_reglare`, `cap06_modelul_intreg`...). **Verificările exercițiilor** (`exercitii/`): câte
un modul pe capitol. **Uneltele instructorului** (`instructor/`): validarea, verificarea de
dinaintea orei, duratele, diapozitivele, insignele, ilustrațiile.

Cine pe cine importă (testul `tests/test_arhitectura.py`): nucleul importă doar din nucleu;
`capitole/` importă din nucleu și din `capitole/`; `exercitii/` din nucleu, `capitole/` și
`exercitii/`; `instructor/` din oricare, mai puțin din `exercitii/`. Niciun cerc de importuri,
nici prin importuri din interiorul funcțiilor.

Pe o mașină fără GPU, importul pachetului pornește interpretorul Triton (`TRITON_INTERPRET=1`),
ca kernel-urile Triton scrise de mână să ruleze și pe CPU. Variabila trebuie pusă înainte ca
`triton` să fie încărcat (de exemplu de primul `torch.compile`), de aceea stă aici, în celula de
pregătire a fiecărui capitol. O valoare pusă deja de tine în mediu e respectată.
"""

import os as _os
import sys as _sys


def _porneste_interpretorul_triton() -> None:
    """Pune `TRITON_INTERPRET=1` dacă nu există GPU CUDA și `triton` nu e încă încărcat."""
    if "triton" in _sys.modules or "TRITON_INTERPRET" in _os.environ:
        return
    import torch

    if not torch.cuda.is_available():
        _os.environ["TRITON_INTERPRET"] = "1"


def _linisteste_mesajele_fara_rost() -> None:
    """Oprește mesajele pe care un cursant le-ar lua drept erori, deși nu spun nimic greșit:
    - „No CUDA runtime is found” (torch, pe o mașină fără GPU, când există totuși un CUDA_HOME);
    - rândurile „USDT … profiler_start/stop” și „gpuGetDeviceCount failed” ale bibliotecii Kineto
      (profilerul), la fiecare rulare a lui `torch.profiler`. Kineto citește `KINETO_LOG_LEVEL`
      la prima pornire a profilerului; 6 înseamnă „nimic”. O valoare pusă deja de tine rămâne;
    - avertismentul lui Inductor „TensorFloat32 tensor cores … available but not enabled”: cursul
      lucrează intenționat în float32 exact acolo unde compară cu eager, iar acolo unde contează
      viteza produselor de matrice folosește bfloat16 sau float16."""
    import logging
    import warnings

    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message=r"TensorFloat32 tensor cores for float32 matrix multiplication")
    _os.environ.setdefault("KINETO_LOG_LEVEL", "6")


_linisteste_mesajele_fara_rost()
_porneste_interpretorul_triton()

from .mediu import afiseaza_mediul, detecteaza_mediul, dimensiune, sincronizeaza

__version__ = "0.1.0"

__all__ = ["afiseaza_mediul", "detecteaza_mediul", "dimensiune", "sincronizeaza"]
