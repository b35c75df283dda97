"""Uneltele capitolului 09 (modelul compilat iese din notebook): ce refuză `torch.export`, spus în
română, și programul C++ care încarcă un pachet AOTInductor (`.pt2`) fără Python.

- `incearca_exportul(model, argumente, strict=..., dynamic_shapes=...)` exportă și, dacă exportul
  e refuzat, spune de ce, pe categorii: o ramificare după valoarea unui tensor, un apel pe care
  Dynamo nu-l urmărește (doar la exportul strict), o dimensiune declarată dinamică pe care codul o
  fixează (constrângeri încălcate). Exportul cere graful întreg: ce la `torch.compile` ar fi o
  întrerupere a grafului, aici e o eroare;

- `construieste_incarcatorul(dosar)` compilează `cap09_incarcator.cpp` (alături de acest modul) cu
  compilatorul C++ al sistemului, pe antetele și bibliotecile torch-ului instalat, cu standardul
  C++ cu care a fost construit torch-ul (`standard_cpp`: C++20 pentru torch 2.14, care refuză un
  standard mai vechi cu „C++20 or later compatible compiler is required”);
- `ruleaza_incarcatorul(executabil, pachet, intrare)` rulează programul într-un proces nou pe o
  intrare dată și întoarce ieșirea lui, ca tensor, plus ce a spus (dispozitivul, timpul unui apel);
- `scrie_tensor` / `citeste_tensor`: formatul binar prin care vorbesc Python și programul C++
  (numărul de dimensiuni și dimensiunile, int64, apoi valorile, float32).

Programul rulează cu `LD_LIBRARY_PATH` spre bibliotecile lui torch: biblioteca modelului din pachet
(un `.so` scris de Inductor) le încarcă la rândul ei, iar fără ele `dlopen` eșuează
(„libtorch.so: cannot open shared object file”).
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import torch

__all__ = [
    "RezultatExport",
    "incearca_exportul",
    "categorie_refuz",
    "SURSA_INCARCATOR",
    "EroareCpp",
    "RulareCpp",
    "standard_cpp",
    "compilator_cpp",
    "comanda_de_compilare",
    "construieste_incarcatorul",
    "ruleaza_incarcatorul",
    "scrie_tensor",
    "citeste_tensor",
]

#: Sursa programului C++ (în pachetul cursului).
SURSA_INCARCATOR = Path(__file__).with_name("cap09_incarcator.cpp")


class EroareCpp(RuntimeError):
    """Construirea sau rularea programului C++ n-a reușit; mesajul spune de ce, în română, cu
    ultimele rânduri scrise de compilator sau de program."""


@dataclass
class RulareCpp:
    """Ce a întors programul C++: `iesire` (tensorul), `dispozitiv`, `timp_apel_s` (un apel al
    modelului, măsurat în C++), `secunde` (tot procesul: pornire, încărcarea pachetului, apelul)."""

    iesire: torch.Tensor
    dispozitiv: str
    timp_apel_s: float
    secunde: float


@dataclass
class RezultatExport:
    """Rezultatul lui `incearca_exportul`: `program` (un `ExportedProgram`) dacă a reușit, altfel
    `categorie` (vezi `categorie_refuz`), `explicatie` (în română) și `original` (primul rând al
    mesajului lui PyTorch, cu tipul excepției)."""

    program: object = None
    categorie: str | None = None
    explicatie: str | None = None
    original: str | None = None

    @property
    def reusit(self) -> bool:
        return self.program is not None


#: Categoriile refuzurilor: (textele care le recunosc în mesajul lui PyTorch, numele, explicația).
_CATEGORII = (
    (("Data-dependent branching", "Could not guard on data-dependent", "GuardOnDataDependentSymNode"),
     "ramificare după date",
     "codul alege o ramură după valoarea unui tensor (`if x.sum() > 0`); exportul nu știe valoarea. "
     "Scrie alegerea în graf, cu `torch.cond` (sau `torch.where`, dacă ambele ramuri se pot calcula)."),
    (("Constraints violated", "specialized it to be a constant"),
     "dimensiune fixată de cod",
     "ai declarat o dimensiune dinamică, dar codul o folosește ca pe o constantă (de exemplu, un `reshape` cu "
     "lotul scris de mână); exportul îți spune valoarea la care a fixat-o. Scrie codul fără constanta aceea "
     "sau declară dimensiunea statică."),
    (("marked as skipped", "does not know how to trace", "Unsupported"),
     "apel pe care Dynamo nu-l urmărește",
     "la exportul strict, Dynamo citește codul Python și se oprește la o funcție pe care n-o poate urmări (o "
     "bibliotecă C, de exemplu). Exportul nestrict (`strict=False`, implicit) rulează Python-ul obișnuit și "
     "trece; altfel, fă din apel o operație proprie (`torch.library.custom_op`, capitolul 07)."),
)


def categorie_refuz(eroare: BaseException) -> tuple[str, str]:
    """(categoria, explicația în română) pentru o excepție aruncată de `torch.export.export`."""
    text = f"{type(eroare).__name__}: {eroare}"
    for tipare, nume, explicatie in _CATEGORII:
        if any(tipar in text for tipar in tipare):
            return nume, explicatie
    return "altceva", "exportul a fost refuzat dintr-un motiv pe care capitolul nu-l tratează; citește mesajul original."


def incearca_exportul(model, argumente: tuple, *, strict: bool = False, dynamic_shapes=None) -> RezultatExport:
    """`torch.export.export(model, argumente, strict=strict, dynamic_shapes=dynamic_shapes)`; dacă
    exportul e refuzat, întoarce categoria și explicația, fără traceback."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            program = torch.export.export(model, tuple(argumente), strict=strict, dynamic_shapes=dynamic_shapes)
        return RezultatExport(program=program)
    except Exception as eroare:  # noqa: BLE001 — orice refuz devine o explicație
        categorie, explicatie = categorie_refuz(eroare)
        rand = next((r.strip() for r in str(eroare).splitlines() if r.strip()), "")
        return RezultatExport(categorie=categorie, explicatie=explicatie,
                              original=f"{type(eroare).__name__}: {rand[:200]}")


def standard_cpp() -> str:
    """Standardul C++ cu care a fost construit torch-ul instalat („c++20” sau „c++17”), citit din
    `torch.__config__.show()` („C++ Version: 202002”)."""
    potrivire = re.search(r"C\+\+ Version:\s*(\d{4})", torch.__config__.show())
    an = int(potrivire.group(1)) if potrivire else 2017
    return "c++20" if an >= 2020 else "c++17"


def compilator_cpp() -> str | None:
    """Compilatorul C++: `$CXX`, altfel `g++` sau `c++` din PATH; None dacă nu există."""
    for nume in (os.environ.get("CXX"), "g++", "c++"):
        if nume and shutil.which(nume):
            return shutil.which(nume)
    return None


def _dosar_torch() -> Path:
    return Path(torch.__file__).resolve().parent


def comanda_de_compilare(sursa: Path, executabil: Path, compilator: str) -> list[str]:
    """Comanda care compilează `sursa` în `executabil`, pe antetele și bibliotecile lui torch."""
    torch_dir = _dosar_torch()
    biblioteci = ["-ltorch", "-ltorch_cpu", "-lc10"]
    if torch.cuda.is_available() and (torch_dir / "lib" / "libtorch_cuda.so").is_file():
        biblioteci += ["-ltorch_cuda", "-lc10_cuda"]
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    return [
        compilator, f"-std={standard_cpp()}", "-O1", str(sursa), "-o", str(executabil),
        f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
        f"-I{torch_dir / 'include'}", f"-I{torch_dir / 'include' / 'torch' / 'csrc' / 'api' / 'include'}",
        f"-L{torch_dir / 'lib'}", f"-Wl,-rpath,{torch_dir / 'lib'}", "-Wl,--no-as-needed", *biblioteci,
    ]


def construieste_incarcatorul(dosar: str | Path, sursa: str | Path = SURSA_INCARCATOR,
                              limita_s: float = 600.0) -> Path:
    """Compilează programul C++ în `dosar` și întoarce calea executabilului. Dacă executabilul
    există deja și e mai nou decât sursa, nu-l compilează din nou. Aruncă `EroareCpp` dacă nu
    există un compilator C++ sau dacă acesta se oprește cu o eroare."""
    dosar = Path(dosar)
    dosar.mkdir(parents=True, exist_ok=True)
    sursa = Path(sursa)
    executabil = dosar / sursa.stem
    if executabil.is_file() and executabil.stat().st_mtime >= sursa.stat().st_mtime:
        return executabil
    compilator = compilator_cpp()
    if compilator is None:
        raise EroareCpp("Nu găsesc un compilator C++ (g++ sau $CXX). Pe Debian/Ubuntu: `apt-get install g++`.")
    comanda = comanda_de_compilare(sursa, executabil, compilator)
    try:
        rezultat = subprocess.run(comanda, capture_output=True, text=True, timeout=limita_s)
    except subprocess.TimeoutExpired:
        raise EroareCpp(f"Compilarea programului C++ n-a terminat în {limita_s:.0f} s.") from None
    if rezultat.returncode != 0:
        erori = [r for r in rezultat.stderr.splitlines() if "error" in r][:5] or rezultat.stderr.splitlines()[-5:]
        raise EroareCpp("Compilatorul C++ s-a oprit cu o eroare:\n" + "\n".join(f"    {r[:300]}" for r in erori))
    return executabil


def scrie_tensor(cale: str | Path, tensor: torch.Tensor) -> None:
    """Scrie `tensor` (ca float32, pe procesor) în formatul programului C++."""
    t = tensor.detach().to("cpu", torch.float32).contiguous()
    with open(cale, "wb") as f:
        f.write(struct.pack("<q", t.dim()))
        f.write(struct.pack(f"<{t.dim()}q", *t.shape))
        f.write(t.numpy().tobytes())


def citeste_tensor(cale: str | Path) -> torch.Tensor:
    """Citește un tensor scris în formatul programului C++."""
    date = Path(cale).read_bytes()
    (dimensiuni,) = struct.unpack_from("<q", date, 0)
    forma = struct.unpack_from(f"<{dimensiuni}q", date, 8)
    inceput = 8 + 8 * dimensiuni
    numar = 1
    for d in forma:
        numar *= d
    if len(date) - inceput != 4 * numar:
        raise ValueError(f"{cale}: forma {tuple(forma)} cere {4 * numar} octeți de valori, fișierul are {len(date) - inceput}")
    return torch.frombuffer(bytearray(date[inceput:]), dtype=torch.float32).reshape(forma).clone()


def ruleaza_incarcatorul(executabil: str | Path, pachet: str | Path, intrare: torch.Tensor,
                         dosar: str | Path | None = None, limita_s: float = 120.0) -> RulareCpp:
    """Rulează programul C++ într-un proces nou: încarcă `pachet` și îl cheamă pe `intrare`.
    Întoarce ieșirea și ce a spus programul. Aruncă `EroareCpp` cu ultimele rânduri ale
    programului dacă acesta se oprește cu o eroare."""
    dosar = Path(dosar) if dosar is not None else Path(pachet).resolve().parent
    cale_intrare, cale_iesire = dosar / "intrare_cpp.bin", dosar / "iesire_cpp.bin"
    scrie_tensor(cale_intrare, intrare)
    cale_iesire.unlink(missing_ok=True)
    biblioteci = str(_dosar_torch() / "lib")
    mediu = {**os.environ, "LD_LIBRARY_PATH": os.pathsep.join(filter(None, [biblioteci, os.environ.get("LD_LIBRARY_PATH")]))}
    inceput = time.perf_counter()
    try:
        rezultat = subprocess.run([str(executabil), str(pachet), str(cale_intrare), str(cale_iesire)],
                                  capture_output=True, text=True, timeout=limita_s, env=mediu)
    except subprocess.TimeoutExpired:
        raise EroareCpp(f"Programul C++ n-a terminat în {limita_s:.0f} s.") from None
    secunde = time.perf_counter() - inceput
    if rezultat.returncode != 0 or not cale_iesire.is_file():
        ultimele = (rezultat.stderr or rezultat.stdout).strip().splitlines()[-4:]
        raise EroareCpp(f"Programul C++ s-a oprit cu codul {rezultat.returncode}:\n"
                        + "\n".join(f"    {r[:300]}" for r in ultimele))
    spuse = dict(r.split(" ", 1) for r in rezultat.stdout.strip().splitlines() if " " in r)
    return RulareCpp(
        iesire=citeste_tensor(cale_iesire),
        dispozitiv=spuse.get("dispozitiv", "?"),
        timp_apel_s=float(spuse.get("timp_apel_ms", "nan")) / 1e3,
        secunde=secunde,
    )
