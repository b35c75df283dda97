"""Mediul de lucru: ce mașină rulează cursul și ce înseamnă asta pentru fiecare capitol.

Aici se detectează o singură dată procesorul sau GPU-ul, Colab, compilatorul C++ de care
are nevoie Inductor pe CPU și versiunile bibliotecilor. Tot aici se alege, într-un singur
loc, profilul de dimensiuni: „rapid” sub teste, „complet” în rest.

Un T4 simulat pe un GPU mai mare
--------------------------------
Cu variabila de mediu `CURS_GPU_SIMULAT=T4`, pe orice GPU NVIDIA, cursul se poartă ca pe
T4-ul de pe Colab: `detecteaza_mediul` descrie un T4 (capabilitatea 7.5, 40 de SM, memoria pe
care o arată Colab), iar restul pachetului citește proprietățile GPU-ului doar de aici. Prima
detectare aplică simularea, o singură dată pe proces (`_aplica_simularea`):

- plafonul de memorie: `torch.cuda.set_per_process_memory_fraction(limita / total, 0)`, cu
  limita de 14,74 GiB (15 095 MiB, cât raportează `total_memory` pe T4-ul de pe Colab; 16 GB
  e doar capacitatea nominală a plăcii);
- Inductor vede un GPU „mic”: `torch._inductor.utils.is_big_gpu` întoarce nu (cu același mesaj
  ca pe un T4, „Not enough SMs to use max_autotune_gemm mode”), iar din
  `max_autotune_gemm_backends` și `max_autotune_conv_backends` ies șabloanele (TRITON și
  celelalte), deci produsele de matrice rămân la ATen, ca pe un T4. Opțiunile schimbate intră și
  în cheia cache-ului lui Inductor: un graf compilat fără simulare nu e refolosit cu ea.

Debitul, latența și timpii de compilare rămân ale GPU-ului real: simularea nu încetinește nimic.
Variabila se setează înaintea celulei de pregătire (pe Colab, `os.environ["CURS_GPU_SIMULAT"] =
"T4"`); o dată aplicată, simularea ține cât procesul.
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import shutil
import sys
from dataclasses import dataclass, field

import torch

from .cifre import cu_substantiv, format_numar

#: Numărul minim de multiprocesoare (SM) de la care Inductor folosește șabloanele sale de
#: GEMM la `max-autotune`; sub el afișează „Not enough SMs to use max_autotune_gemm mode”.
SM_MINIM_GEMM_AUTOTUNE = 68

#: Variabila de mediu care alege profilul de dimensiuni („rapid” sau „complet”).
VARIABILA_PROFIL = "CURS_PROFIL"

#: Variabila de mediu care cere un GPU simulat („T4”) pe un GPU NVIDIA real, de obicei mai mare.
VARIABILA_GPU_SIMULAT = "CURS_GPU_SIMULAT"

#: Memoria GPU-ului de la care cursul alege dimensiunile „mari” (sub ea, un T4: loturi mai mici).
MEMORIE_GPU_MARE_GIB = 40


@dataclass(frozen=True)
class ProfilGPU:
    """Un GPU pe care cursul îl poate simula pe un GPU NVIDIA real."""

    nume: str
    capabilitate: tuple[int, int]
    numar_sm: int
    memorie_octeti: int  # cât raportează `total_memory`
    memorie_partajata_bloc: int  # memoria partajată maximă a unui bloc (octeți, cu opt-in)


#: Profilurile pe care le poate simula `CURS_GPU_SIMULAT`. T4-ul de pe Colab: capabilitatea 7.5
#: (Turing), 40 de SM, 15 095 MiB raportați de `total_memory` (14,74 GiB; 16 GB e capacitatea
#: nominală), 64 KiB de memorie partajată pe bloc.
PROFILURI_GPU_SIMULAT = {
    "T4": ProfilGPU("Tesla T4", (7, 5), 40, 15095 * 2**20, 64 * 1024),
}

#: Backend-urile de GEMM și de convoluție pe care simularea le scoate din opțiunile lui Inductor:
#: șabloanele, pe care Inductor nu le folosește pe un GPU cu mai puțin de 68 de SM.
_SABLOANE_GEMM = ("TRITON", "CUTLASS", "CK", "CKTILE", "NVGEMM")

#: Starea simulării aplicate în acest proces (None: nicio simulare); vezi `_aplica_simularea`.
_SIMULARE_APLICATA: dict | None = None


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
    memorie_partajata_bloc: int | None = None  # octeți, pe bloc (cu opt-in); None dacă nu se știe
    gpu_simulat: str | None = None  # profilul simulat („T4”), sau None pe un GPU nesimulat
    gpu_real: str | None = None  # numele GPU-ului real, când cel descris e simulat
    memorie_gpu_reala_gib: float | None = None
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
    def e_simulat(self) -> bool:
        """Adevărat când GPU-ul descris e simulat (`CURS_GPU_SIMULAT`) pe un alt GPU, real."""
        return self.gpu_simulat is not None

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
            if self.e_simulat:
                randuri.append(f"Dispozitiv: GPU {self.nume_gpu}, pe {loc}")
            else:
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
            if self.e_simulat:
                randuri.extend(self._randuri_simulare())
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

    def _randuri_simulare(self) -> list[str]:
        """Ce e și ce nu e al GPU-ului simulat, pentru rezumat."""
        memorie_reala = (
            f", {format_numar(self.memorie_gpu_reala_gib)} GiB" if self.memorie_gpu_reala_gib else ""
        )
        return [
            f"ATENȚIE: profil simulat ({VARIABILA_GPU_SIMULAT}={self.gpu_simulat}). GPU-ul real e "
            f"{self.gpu_real}{memorie_reala}; descrierea de mai sus e a unui {self.gpu_simulat}.",
            f"  Sunt ale unui {self.gpu_simulat}: plafonul de memorie al procesului "
            f"({format_numar(self.memorie_gpu_gib)} GiB), alegerea tipului de date ("
            + ("bfloat16" if self.bf16_nativ else "float16, fără bf16 nativ")
            + "), dimensiunile problemelor alese după memorie și lipsa șabloanelor GEMM la "
            "max-autotune (Inductor folosește ATen pentru produsele de matrice).",
            f"  NU sunt ale unui {self.gpu_simulat}: debitul, latența, accelerările și timpii de "
            f"compilare. Le măsori pe {self.gpu_real}; cifrele unui {self.gpu_simulat} adevărat le "
            "vezi doar pe unul (de exemplu pe Colab).",
        ]


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


def _profil_simulat_cerut() -> tuple[ProfilGPU | None, str | None]:
    """Profilul cerut de `CURS_GPU_SIMULAT` (singurul loc unde se citește variabila) și, dacă
    valoarea nu e un profil cunoscut, observația în română. Fără variabilă: (None, None)."""
    valoare = os.environ.get(VARIABILA_GPU_SIMULAT, "").strip()
    if not valoare:
        return None, None
    profil = PROFILURI_GPU_SIMULAT.get(valoare.upper())
    if profil is None:
        cunoscute = ", ".join(PROFILURI_GPU_SIMULAT)
        return None, (
            f"ATENȚIE: {VARIABILA_GPU_SIMULAT}={valoare} nu e un profil pe care cursul îl poate simula "
            f"(profilurile cunoscute: {cunoscute}). Variabila e ignorată: rulezi pe mașina reală."
        )
    return profil, None


def _fara_sabloane(backenduri: str) -> str:
    """Lista de backend-uri a lui Inductor („ATEN,TRITON,CPP”) fără șabloanele de GPU; ATen
    rămâne mereu (e ce folosește un T4)."""
    ramase = [b.strip() for b in backenduri.upper().split(",") if b.strip() and b.strip() not in _SABLOANE_GEMM]
    if "ATEN" not in ramase:
        ramase.insert(0, "ATEN")
    return ",".join(ramase)


def _gpu_mic_pentru_inductor(profil: ProfilGPU) -> dict:
    """Face ca Inductor să trateze GPU-ul CUDA ca pe unul mic, ca pe un T4: fără șabloane GEMM
    la max-autotune. Întoarce ce trebuie pentru a anula schimbarea (`_anuleaza_simularea`).

    Două lucruri, verificate în sursele lui PyTorch 2.11 (Colab) și 2.14:

    - `torch._inductor.utils.is_big_gpu`, funcția prin care Inductor decide (o caută la fiecare
      apel în modulul ei, din `_use_template_for_gpu`), e înlocuită cu una care, pe CUDA, scrie
      mesajul unui T4 și întoarce nu; la fel în modulele lui Inductor deja încărcate care au
      importat-o după nume;
    - din `max_autotune_gemm_backends` și `max_autotune_conv_backends` ies șabloanele (TRITON,
      CUTLASS, CK…): rămâne ATen, ca pe un T4, chiar dacă o versiune viitoare ar decide altfel
      decât prin `is_big_gpu`; opțiunile intră și în cheia cache-ului lui Inductor.
    """
    import torch._inductor.config as config_inductor
    import torch._inductor.utils as utile_inductor

    original = utile_inductor.is_big_gpu
    while getattr(original, "_curs_gpu_simulat", False):  # deja înlocuită: nu se învelește de două ori
        original = original.__wrapped__

    @functools.wraps(original)
    def is_big_gpu(index_or_device=0):
        if isinstance(index_or_device, torch.device):
            tip = index_or_device.type
        else:
            tip = getattr(utile_inductor, "get_gpu_type", lambda: "cuda")()
        if tip != "cuda":
            return original(index_or_device)
        if not is_big_gpu._avertizat:  # o singură dată pe proces, ca originalul (care ține minte răspunsul)
            is_big_gpu._avertizat = True
            utile_inductor.log.warning(
                "Not enough SMs to use max_autotune_gemm mode",
                extra={"min_sms": SM_MINIM_GEMM_AUTOTUNE, "avail_sms": profil.numar_sm},
            )
        return False

    is_big_gpu._curs_gpu_simulat = True
    is_big_gpu._avertizat = False
    module_schimbate = []
    for nume, modul in list(sys.modules.items()):
        if (nume == "torch._inductor" or nume.startswith("torch._inductor.")) and modul is not None:
            with contextlib.suppress(Exception):
                if getattr(modul, "is_big_gpu", None) is original:
                    setattr(modul, "is_big_gpu", is_big_gpu)
                    module_schimbate.append(nume)
    if utile_inductor.is_big_gpu is not is_big_gpu:
        utile_inductor.is_big_gpu = is_big_gpu
        module_schimbate.append(utile_inductor.__name__)
    optiuni = {}
    for optiune in ("max_autotune_gemm_backends", "max_autotune_conv_backends"):
        if hasattr(config_inductor, optiune):
            optiuni[optiune] = getattr(config_inductor, optiune)
            setattr(config_inductor, optiune, _fara_sabloane(optiuni[optiune]))
    return {"is_big_gpu": original, "inlocuitor": is_big_gpu, "module": module_schimbate, "optiuni": optiuni}


def _aplica_simularea(profil: ProfilGPU, proprietati) -> dict:
    """Aplică simularea în proces, o singură dată: plafonul de memorie și GPU-ul „mic” pentru
    Inductor. A doua oară nu mai face nimic și întoarce aceeași stare."""
    global _SIMULARE_APLICATA
    if _SIMULARE_APLICATA is not None:
        return _SIMULARE_APLICATA
    # Pe un T4, din cei 15 095 MiB intră și contextul CUDA al procesului (și ce ocupă alte
    # procese): alocatorului îi rămâne mai puțin. La fel aici: plafonul alocatorului e memoria
    # T4-ului minus ce e deja ocupat pe GPU în afara alocatorului (cel mult 2 GiB).
    ocupat_in_afara = 0
    with contextlib.suppress(Exception):
        liber, total = torch.cuda.mem_get_info(0)
        ocupat_in_afara = min(max(0, total - liber - torch.cuda.memory_reserved(0)), 2 * 2**30)
    plafon = max(profil.memorie_octeti - ocupat_in_afara, profil.memorie_octeti // 2)
    fractie = min(1.0, plafon / proprietati.total_memory)
    torch.cuda.set_per_process_memory_fraction(float(fractie), 0)
    _SIMULARE_APLICATA = {
        "profil": next(cheie for cheie, p in PROFILURI_GPU_SIMULAT.items() if p == profil),
        "fractie_memorie": fractie,
        "plafon_alocator_octeti": int(plafon),
        "ocupat_in_afara_octeti": int(ocupat_in_afara),
        **_gpu_mic_pentru_inductor(profil),
    }
    return _SIMULARE_APLICATA


def _anuleaza_simularea() -> None:
    """Anulează simularea din acest proces (pentru teste): pune la loc `is_big_gpu`, opțiunile
    lui Inductor și memoria întreagă."""
    global _SIMULARE_APLICATA
    stare, _SIMULARE_APLICATA = _SIMULARE_APLICATA, None
    if stare is None:
        return
    import torch._inductor.config as config_inductor

    for nume in stare["module"]:
        modul = sys.modules.get(nume)
        if modul is not None and getattr(modul, "is_big_gpu", None) is stare["inlocuitor"]:
            setattr(modul, "is_big_gpu", stare["is_big_gpu"])
    for optiune, valoare in stare["optiuni"].items():
        setattr(config_inductor, optiune, valoare)
    with contextlib.suppress(Exception):
        torch.cuda.set_per_process_memory_fraction(1.0, 0)


def detecteaza_mediul() -> Mediu:
    """Detectează mașina: CPU sau GPU CUDA, Colab, compilatorul C++, versiunile.

    Cu `CURS_GPU_SIMULAT=T4` și un GPU NVIDIA, descrie un T4 și aplică simularea (vezi
    descrierea modulului); fără GPU, variabila e ignorată, cu o observație."""
    comun = dict(
        pe_colab=_pe_colab(),
        compilator_cpp=_compilator_cpp(),
        versiune_triton=_versiune_triton(),
        profil=profil_curent(),
    )
    if _SIMULARE_APLICATA is not None:
        profil, nota_profil = PROFILURI_GPU_SIMULAT[_SIMULARE_APLICATA["profil"]], None
    else:
        profil, nota_profil = _profil_simulat_cerut()
    observatii = [nota_profil] if nota_profil else []
    if not torch.cuda.is_available():
        if comun["compilator_cpp"] is None:
            observatii.append(
                "ATENȚIE: lipsește un compilator C++. Pe Debian/Ubuntu: `sudo apt install g++`; "
                "pe macOS: `xcode-select --install`."
            )
        if profil is not None:
            observatii.append(
                f"Observație: {VARIABILA_GPU_SIMULAT}={os.environ.get(VARIABILA_GPU_SIMULAT, '').strip()} e ignorată: "
                f"simularea unui {profil.nume} are nevoie de un GPU NVIDIA real, iar mașina aceasta n-are niciunul."
            )
        return Mediu(dispozitiv="cpu", observatii=tuple(observatii), **comun)

    proprietati = torch.cuda.get_device_properties(0)
    if profil is not None and torch.version.hip:
        observatii.append(
            f"Observație: {VARIABILA_GPU_SIMULAT} e ignorată: simularea unui {profil.nume} merge doar pe un GPU NVIDIA."
        )
        profil = None
    if profil is not None:
        _aplica_simularea(profil, proprietati)
        memorie_reala = proprietati.total_memory / 2**30
        if proprietati.total_memory < profil.memorie_octeti:
            observatii.append(
                f"Observație: GPU-ul real are doar {format_numar(memorie_reala)} GiB, mai puțin decât un {profil.nume}; "
                "plafonul de memorie al simulării e memoria lui întreagă."
            )
        gpu = dict(
            nume_gpu=f"{profil.nume} (simulat pe {proprietati.name})",
            capabilitate=profil.capabilitate,
            numar_sm=profil.numar_sm,
            memorie_gpu_gib=min(profil.memorie_octeti, proprietati.total_memory) / 2**30,
            memorie_partajata_bloc=profil.memorie_partajata_bloc,
            gpu_simulat=_SIMULARE_APLICATA["profil"],
            gpu_real=proprietati.name,
            memorie_gpu_reala_gib=memorie_reala,
        )
    else:
        optin = getattr(proprietati, "shared_memory_per_block_optin", None)
        gpu = dict(
            nume_gpu=proprietati.name,
            capabilitate=(proprietati.major, proprietati.minor),
            numar_sm=proprietati.multi_processor_count,
            memorie_gpu_gib=proprietati.total_memory / 2**30,
            memorie_partajata_bloc=int(optin) if optin else None,
        )
    capabilitate, numar_sm = gpu["capabilitate"], gpu["numar_sm"]
    if numar_sm < SM_MINIM_GEMM_AUTOTUNE:
        observatii.append(
            f"Observație: GPU-ul are {cu_substantiv(numar_sm, 'SM', 'SM')}, sub cele {SM_MINIM_GEMM_AUTOTUNE} de care au "
            "nevoie șabloanele GEMM ale lui Inductor; max-autotune va regla doar restul kernel-urilor."
        )
    return Mediu(
        dispozitiv="cuda",
        # bf16 nativ începe cu Ampere (8.0); T4 (7.5) doar îl emulează, lent.
        bf16_nativ=capabilitate >= (8, 0),
        gemm_autotune_posibil=numar_sm >= SM_MINIM_GEMM_AUTOTUNE,
        observatii=tuple(observatii),
        **gpu,
        **comun,
    )


def gpu_mare() -> bool:
    """Adevărat pe un GPU cu cel puțin `MEMORIE_GPU_MARE_GIB` (40) GiB de memorie, după
    `detecteaza_mediul` (deci un T4 simulat e „mic”); fals pe un GPU mai mic și pe procesor."""
    mediu = detecteaza_mediul()
    return mediu.are_gpu and mediu.memorie_gpu_gib >= MEMORIE_GPU_MARE_GIB


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
