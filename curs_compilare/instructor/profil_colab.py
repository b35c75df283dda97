"""Profilul „ca pe Colab” al validării: cât durează cursul pe o mașină cu 2 nuclee și un T4.

Un runtime gratuit de Colab are un T4 (15 GiB de memorie GPU, fără bf16), 2 procesoare virtuale
și circa 12,7 GB de memorie RAM. Compilarea e lucru de procesor: pe o mașină cu 16 nuclee,
Inductor compilează kernel-urile în paralel, în 16 procese, iar PyTorch calculează pe procesor
cu 16 fire. Ca durata unei validări să spună ceva despre o sală de atelier pe Colab, profilul
acesta pune kernel-ul Jupyter în condițiile unui runtime Colab:

- GPU-ul simulat ca T4 (`CURS_GPU_SIMULAT=T4`: memoria GPU limitată, fără bf16, dimensiunile
  unui GPU mic; vezi `mediu`);
- kernel-ul și tot ce pornește el legate de 2 nuclee (afinitatea procesorului, moștenită de
  procesele copil), `torch.get_num_threads()` = 2 (`OMP_NUM_THREADS`) și 2 procese de compilare
  ale lui Inductor (`TORCHINDUCTOR_COMPILE_THREADS`), câte ar alege Inductor singur pe o mașină
  cu 2 procesoare;
- memoria RAM a kernel-ului și a proceselor lui, măsurată (`MemorieGazda`), cu limita de 12 GiB:
  peste ea, pe Colab, kernel-ul ar fi oprit.

Duratele măsurate așa sunt o **limită de jos** pentru un T4 adevărat: compilarea și Python-ul
merg cam ca pe Colab (2 nuclee, deși mai rapide decât procesoarele virtuale ale Colab-ului), dar
lucrul GPU-ului se face cu viteza GPU-ului real al mașinii (un H200 e de câteva ori mai rapid
decât un T4).

    python -m curs_compilare.instructor.validare --profil-colab --iesire build/validare_colab
"""

from __future__ import annotations

import contextlib
import os
import threading
from dataclasses import dataclass, field
from unittest import mock

#: Câte procesoare are un runtime gratuit de Colab.
NUCLEE_COLAB = 2

#: Memoria RAM a unui runtime gratuit de Colab e de circa 12,7 GB; un notebook care cere mai mult
#: de atât (kernel-ul și procesele lui) e oprit. Limita validării, în GiB, lasă loc sistemului.
LIMITA_RAM_COLAB_GIB = 12.0


@dataclass
class ProfilColab:
    """Condițiile unui runtime Colab gratuit, aplicate procesului care execută notebook-urile
    (și moștenite de kernel-ul Jupyter pe care îl pornește): `nuclee` procesoare (afinitate),
    tot atâtea fire pentru PyTorch și procese de compilare pentru Inductor, GPU-ul simulat
    `gpu_simulat`. `nuclee_alese` sunt nucleele pe care rulează (primele `nuclee` dintre cele
    permise procesului)."""

    nuclee: int = NUCLEE_COLAB
    gpu_simulat: str = "T4"
    limita_ram_gib: float = LIMITA_RAM_COLAB_GIB
    nuclee_alese: tuple[int, ...] = field(default_factory=tuple)

    def variabile(self) -> dict[str, str]:
        """Variabilele de mediu pe care le vede kernel-ul."""
        n = str(self.nuclee)
        return {
            "CURS_GPU_SIMULAT": self.gpu_simulat,
            "OMP_NUM_THREADS": n,
            "MKL_NUM_THREADS": n,
            "TORCHINDUCTOR_COMPILE_THREADS": n,
        }

    def descriere(self) -> str:
        nuclee = ", ".join(map(str, self.nuclee_alese)) if self.nuclee_alese else "oricare"
        return (f"GPU simulat {self.gpu_simulat}, {self.nuclee} nuclee (afinitate: {nuclee}), "
                f"{self.nuclee} fire PyTorch și {self.nuclee} procese de compilare Inductor, "
                f"memoria RAM a notebook-ului cel mult {self.limita_ram_gib:g} GiB")

    @contextlib.contextmanager
    def aplicat(self):
        """Cât ține blocul, procesul curent (deci și kernel-urile pornite din el) rulează în
        profil: afinitatea pe `nuclee` nuclee și variabilele de mediu; la ieșire, totul revine."""
        vechea_afinitate = _afinitate()
        try:
            if vechea_afinitate is not None:
                alese = tuple(sorted(vechea_afinitate))[: self.nuclee]
                os.sched_setaffinity(0, alese)
                self.nuclee_alese = alese
            with mock.patch.dict(os.environ, self.variabile()):
                yield self
        finally:
            if vechea_afinitate is not None:
                os.sched_setaffinity(0, vechea_afinitate)

def _afinitate() -> set[int] | None:
    """Nucleele pe care are voie să ruleze procesul curent, sau None unde sistemul nu le spune
    (macOS, Windows): acolo profilul pune doar variabilele de mediu."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    return set(os.sched_getaffinity(0))


class MemorieGazda:
    """Urmărește, cât rulează un notebook, memoria RAM a kernel-ului și a proceselor pornite de
    el (suma memoriei rezidente, RSS, a tuturor, la fiecare jumătate de secundă) și ține maximul,
    în MiB. Procesele de compilare ale lui Inductor intră și ele: pe Colab, ocupă aceeași
    memorie. (Paginile împărțite între procese se numără o dată pentru fiecare proces, deci
    maximul e, dacă greșește, prea mare, nu prea mic.)"""

    PAUZA_S = 0.5

    def __init__(self):
        self.maxim_mib: float | None = None
        self._pid: int | None = None
        self._opreste = threading.Event()
        self._fir: threading.Thread | None = None

    def porneste(self) -> "MemorieGazda":
        self._fir = threading.Thread(target=self._urmareste, daemon=True)
        self._fir.start()
        return self

    def pid_kernel(self, pid: int) -> None:
        self._pid = pid

    def masoara_acum(self) -> float | None:
        """Memoria rezidentă a kernel-ului și a proceselor lui, acum, în MiB (None fără kernel
        sau fără psutil)."""
        if self._pid is None:
            return None
        try:
            import psutil

            kernel = psutil.Process(self._pid)
            procese = [kernel, *kernel.children(recursive=True)]
        except Exception:
            return None
        total = 0
        for proces in procese:
            with contextlib.suppress(Exception):
                total += proces.memory_info().rss
        return total / 2**20

    def _urmareste(self) -> None:
        while not self._opreste.wait(self.PAUZA_S):
            valoare = self.masoara_acum()
            if valoare is not None and (self.maxim_mib is None or valoare > self.maxim_mib):
                self.maxim_mib = valoare

    def opreste(self) -> None:
        # o ultimă citire: un notebook scurt poate să se termine între două citiri
        valoare = self.masoara_acum()
        if valoare is not None and (self.maxim_mib is None or valoare > self.maxim_mib):
            self.maxim_mib = valoare
        self._opreste.set()
        if self._fir is not None:
            self._fir.join(timeout=5)
