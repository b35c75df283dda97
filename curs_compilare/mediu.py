"""Mediul de lucru: ce mașină rulează cursul și ce înseamnă asta pentru fiecare capitol.

Aici se detectează o singură dată procesorul sau GPU-ul, Colab, compilatorul C++ de care
are nevoie Inductor pe CPU și versiunile bibliotecilor. Tot aici se alege, într-un singur
loc, profilul de dimensiuni: „rapid” sub teste, „complet” în rest.
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
from dataclasses import dataclass, field

import torch

from .cifre import cu_substantiv

#: Numărul minim de multiprocesoare (SM) de la care Inductor folosește șabloanele sale de
#: GEMM la `max-autotune`; sub el afișează „Not enough SMs to use max_autotune_gemm mode”.
SM_MINIM_GEMM_AUTOTUNE = 68

#: Variabila de mediu care alege profilul de dimensiuni („rapid” sau „complet”).
VARIABILA_PROFIL = "CURS_PROFIL"


@dataclass(frozen=True)
class Mediu:
    """Descrierea mașinii pe care rulează cursul."""

    dispozitiv: str  # „cuda” sau „cpu”
    pe_colab: bool
    nume_gpu: str | None = None
    capabilitate: tuple[int, int] | None = None
    numar_sm: int | None = None
    memorie_gpu_gib: float | None = None
    bf16_nativ: bool = False
    gemm_autotune_posibil: bool = False
    compilator_cpp: str | None = None
    versiune_torch: str = torch.__version__
    versiune_triton: str | None = None
    versiune_python: str = platform.python_version()
    profil: str = "complet"
    observatii: tuple[str, ...] = field(default_factory=tuple)

    @property
    def are_gpu(self) -> bool:
        """Adevărat când există un GPU CUDA utilizabil."""
        return self.dispozitiv == "cuda"

    @property
    def device(self) -> torch.device:
        """Dispozitivul PyTorch pe care rulează experimentele."""
        return torch.device(self.dispozitiv)

    def rezumat(self) -> str:
        """Rezumatul în română pe care îl afișează celula de pregătire a fiecărui capitol."""
        randuri = []
        loc = "Colab" if self.pe_colab else "mașina ta"
        if self.are_gpu:
            major, minor = self.capabilitate or (0, 0)
            randuri.append(f"Dispozitiv: GPU {self.nume_gpu} ({loc})")
            randuri.append(
                f"  capabilitate {major}.{minor}, "
                f"{cu_substantiv(self.numar_sm, 'multiprocesor', 'multiprocesoare')} (SM), "
                f"{self.memorie_gpu_gib:.0f} GiB de memorie"
            )
            randuri.append(
                "  bf16 nativ: " + ("da" if self.bf16_nativ else "nu (folosește float16 sau float32)")
            )
            randuri.append(
                "  șabloanele GEMM ale reglării automate (max-autotune): "
                + (
                    "disponibile"
                    if self.gemm_autotune_posibil
                    else f"indisponibile (sunt necesare cel puțin {SM_MINIM_GEMM_AUTOTUNE} de SM)"
                )
            )
        else:
            randuri.append(f"Dispozitiv: procesor (CPU), fără GPU ({loc})")
            randuri.append(
                "  Inductor va genera cod C++; kernel-urile Triton scrise de mână rulează prin "
                "interpretor (TRITON_INTERPRET=1). Părțile care cer GPU arată cifrele de referință."
            )
            randuri.append(
                "  compilator C++ pentru Inductor: "
                + (self.compilator_cpp or "NEGĂSIT — torch.compile nu va funcționa pe CPU")
            )
        randuri.append(
            f"Versiuni: Python {self.versiune_python}, torch {self.versiune_torch}, "
            f"triton {self.versiune_triton or 'neinstalat'}"
        )
        randuri.append(
            "Profil de dimensiuni: "
            + ("rapid (dimensiuni mici, pentru teste)" if self.profil == "rapid" else "complet")
        )
        randuri.extend(self.observatii)
        return "\n".join(randuri)


def profil_curent() -> str:
    """Întoarce profilul de dimensiuni: „rapid” dacă CURS_PROFIL=rapid, altfel „complet”."""
    valoare = os.environ.get(VARIABILA_PROFIL, "complet").strip().lower()
    return "rapid" if valoare == "rapid" else "complet"


def dimensiune(gpu, cpu, rapid=None):
    """Alege o dimensiune de problemă după mașină și profil — singurul loc unde se face asta.

    `gpu` se folosește pe un GPU, `cpu` pe procesor, iar `rapid` (dacă e dat) sub teste,
    oriunde ar rula ele.
    """
    if rapid is not None and profil_curent() == "rapid":
        return rapid
    return gpu if torch.cuda.is_available() else cpu


def _pe_colab() -> bool:
    return "google.colab" in sys.modules or "COLAB_RELEASE_TAG" in os.environ


def _versiune_triton() -> str | None:
    try:
        import triton
    except Exception:  # triton lipsește (de exemplu pe macOS)
        return None
    return getattr(triton, "__version__", "necunoscută")


def _compilator_cpp() -> str | None:
    """Calea compilatorului C++ pe care l-ar folosi Inductor, sau None dacă lipsește."""
    nume = None
    try:
        from torch._inductor.cpp_builder import get_cpp_compiler

        nume = get_cpp_compiler()
    except Exception:
        nume = os.environ.get("CXX") or "g++"
    cale = shutil.which(nume) if nume else None
    if cale is None:
        for alternativa in ("g++", "clang++", "c++"):
            cale = shutil.which(alternativa)
            if cale:
                break
    return cale


def detecteaza_mediul() -> Mediu:
    """Detectează mașina: CPU sau GPU CUDA, Colab, compilatorul C++, versiunile."""
    comun = dict(
        pe_colab=_pe_colab(),
        compilator_cpp=_compilator_cpp(),
        versiune_triton=_versiune_triton(),
        profil=profil_curent(),
    )
    if not torch.cuda.is_available():
        observatii = ()
        if comun["compilator_cpp"] is None:
            observatii = (
                "ATENȚIE: lipsește un compilator C++. Pe Debian/Ubuntu: `sudo apt install g++`; "
                "pe macOS: `xcode-select --install`.",
            )
        return Mediu(dispozitiv="cpu", observatii=observatii, **comun)

    proprietati = torch.cuda.get_device_properties(0)
    capabilitate = (proprietati.major, proprietati.minor)
    numar_sm = proprietati.multi_processor_count
    observatii = []
    if numar_sm < SM_MINIM_GEMM_AUTOTUNE:
        observatii.append(
            f"Observație: GPU-ul are {cu_substantiv(numar_sm, 'SM', 'SM')}, sub cele {SM_MINIM_GEMM_AUTOTUNE} de care au "
            "nevoie șabloanele GEMM ale lui Inductor; max-autotune va regla doar restul kernel-urilor."
        )
    return Mediu(
        dispozitiv="cuda",
        nume_gpu=proprietati.name,
        capabilitate=capabilitate,
        numar_sm=numar_sm,
        memorie_gpu_gib=proprietati.total_memory / 2**30,
        # bf16 nativ începe cu Ampere (8.0); T4 (7.5) doar îl emulează, lent.
        bf16_nativ=capabilitate >= (8, 0),
        gemm_autotune_posibil=numar_sm >= SM_MINIM_GEMM_AUTOTUNE,
        observatii=tuple(observatii),
        **comun,
    )


def afiseaza_mediul() -> Mediu:
    """Detectează mediul, îi afișează rezumatul în română și îl întoarce."""
    mediu = detecteaza_mediul()
    print(mediu.rezumat())
    return mediu


def sincronizeaza(dispozitiv: torch.device | str | None = None) -> None:
    """Așteaptă ca GPU-ul să termine tot ce i s-a cerut; pe CPU nu face nimic."""
    if dispozitiv is None:
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        return
    if torch.device(dispozitiv).type == "cuda":
        torch.cuda.synchronize(dispozitiv)
