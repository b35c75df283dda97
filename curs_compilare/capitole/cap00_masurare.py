"""Uneltele capitolului 00 (mediul și măsurarea corectă): ce rămâne în afara celulelor, ca ele
să arate doar experimentul.

- **Cronometrul naiv pe un GPU real** (`raporteaza_cronometrul_real`): cei doi timpi ai lui
  `a @ a`, tipăriți și notați în registrul de cifre.
- **Timpii apel cu apel** (`grafic_apel_cu_apel`): fiecare apel, cu media și mediana.
- **Primul apel și amortizarea** (`inregistreaza_gelu`, `raporteaza_rentabilitatea`): cifrele
  lui `gelu_manual`, eager și compilat, și propoziția despre pragul de rentabilitate.
- **Plafonul de copiere** (`inregistreaza_plafonul`, `raporteaza_clone`,
  `explica_curba_copierii`, `grafic_punct_pe_curba`): cifra plafonului, verificarea ei cu
  `triton.testing.do_bench`, ce înseamnă punctele curbei care ies din rând și punctul ales în
  explorator, pe curba copierii.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt

from .. import cifre, grafice
from ..masurare import Comparatie, PlafonCopiere, Raport

__all__ = [
    "raporteaza_cronometrul_real",
    "grafic_apel_cu_apel",
    "inregistreaza_gelu",
    "raporteaza_rentabilitatea",
    "inregistreaza_plafonul",
    "raporteaza_clone",
    "explica_curba_copierii",
    "grafic_punct_pe_curba",
]


def raporteaza_cronometrul_real(n: int, naiv: float, corect: float) -> None:
    """Tipărește timpii lui `a @ a` (o matrice `n` × `n`) cronometrați pe un GPU real, fără și
    cu sincronizare (în secunde, pe apel), și de câte ori a mințit cronometrul naiv; îi notează
    în registrul de cifre, în µs."""
    latura = cifre.format_numar(n)
    print(f"GPU real, a @ a ({latura} × {latura}): fără sincronizare {cifre.format_timp(naiv)}, "
          f"cu sincronizare {cifre.format_timp(corect)}")
    print(f"Cronometrul naiv a dat un timp de {cifre.cu_unitate(corect / naiv, '×')} mai mic decât cel real.")
    cifre.inregistreaza("00.cronometru_naiv_us", naiv * 1e6, "µs", f"a @ a ({latura} × {latura}) cronometrat fără sincronizare", depinde_de_procesor=True)
    cifre.inregistreaza("00.cronometru_corect_us", corect * 1e6, "µs", f"a @ a ({latura} × {latura}) cronometrat cu sincronizare")


def grafic_apel_cu_apel(timpi_ms: Sequence[float], medie: float, mediana: float, titlu: str):
    """Timpul fiecărui apel (în ms), în ordine, cu media și mediana lor ca linii orizontale, ca
    să se vadă cum trag apelurile care ies din rând media în sus. Întoarce axa."""
    _, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(range(1, len(timpi_ms) + 1), timpi_ms, marker="o")
    ax.axhline(medie, color="tab:red", linestyle="--", label=f"media: {cifre.format_timp(medie / 1e3)}")
    ax.axhline(mediana, color="tab:green", linestyle="--", label=f"mediana: {cifre.format_timp(mediana / 1e3)}")
    ax.set_xlabel("al câtelea apel")
    ax.set_ylabel("timp (ms)")
    ax.set_title(titlu)
    ax.legend()
    return ax


def inregistreaza_gelu(comparatie: Comparatie, timp_prima: float) -> None:
    """Notează în registrul de cifre primul apel compilat al lui `gelu_manual` (`timp_prima`, în
    secunde), medianele variantelor „eager” și „compilat” din `comparatie` și accelerarea."""
    cifre.inregistreaza("00.prima_apelare_s", timp_prima, "s", "gelu_manual: primul apel compilat (compilare + rulare, cache gol)", depinde_de_procesor=True)
    cifre.inregistreaza("00.gelu_eager_ms", comparatie["eager"], "ms", "gelu_manual eager, mediana")
    cifre.inregistreaza("00.gelu_compilat_ms", comparatie["compilat"], "ms", "gelu_manual compilat, mediana")
    cifre.inregistreaza("00.gelu_accelerare", comparatie.accelerare("eager", "compilat"), "×", "gelu_manual: accelerarea după compilare")


def raporteaza_rentabilitatea(prag: int | None, accelerare: Raport) -> None:
    """Spune ce înseamnă pragul de rentabilitate (`prag`, apelul de la care compilarea s-a
    amortizat, sau None) pe mașina ta: nu se amortizează; un prag nesigur, când diferența pe apel
    (`accelerare`) e în limita zgomotului; sau apelul de la care s-a amortizat, notat atunci și
    în registrul de cifre."""
    if prag is None:
        print("Pe mașina ta, varianta compilată nu e mai rapidă pe apel: compilarea nu se amortizează.")
    elif accelerare.in_zgomot:
        print(f"Pe mașina ta, diferența dintre timpii pe apel e în limita zgomotului ({accelerare}): pragul din grafic, "
              f"apelul {cifre.format_numar(prag)}, nu e sigur. Cu alt zgomot s-ar muta mult sau ar dispărea: poate că "
              "nu se amortizează deloc.")
    else:
        print(f"Compilarea s-a amortizat la apelul {cifre.format_numar(prag)}.")
        cifre.inregistreaza("00.prag_rentabilitate", prag, "apeluri", "gelu_manual: apelul de la care compilarea s-a amortizat", depinde_de_procesor=True)


def inregistreaza_plafonul(plafon: PlafonCopiere) -> None:
    """Notează în registrul de cifre lățimea de bandă a copierii (plafonul), în GB/s."""
    cifre.inregistreaza("00.plafon_copiere_gbps", plafon.gbps, "GB/s", "lățimea de bandă a copierii (citire + scriere)")


def raporteaza_clone(plafon: PlafonCopiere, gbps_clone: float) -> None:
    """Pune lângă plafon lățimea de bandă a lui `x.clone()` cronometrat direct cu
    `triton.testing.do_bench` (`gbps_clone`, pe același număr de octeți): o tipărește, cu
    raportul celor două, și o notează în registrul de cifre."""
    print(f"x.clone() cu triton.testing.do_bench: {cifre.cu_unitate(gbps_clone, 'GB/s')}")
    print(f"Raportul dintre cele două măsurători: {cifre.format_numar(plafon.gbps / gbps_clone, 3)}")
    cifre.inregistreaza("00.clone_do_bench_gbps", gbps_clone, "GB/s", "x.clone() cronometrat direct cu do_bench")


def explica_curba_copierii(
    dimensiuni_octeti: Sequence[int],
    gbps_copiere: Sequence[float],
    ceasuri: Sequence[str],
    plafon: PlafonCopiere,
    are_gpu: bool,
) -> None:
    """Sub graficul copierii, doar când e cazul: la ce dimensiuni (mai mici decât tensorul
    plafonului) copierea a trecut cu peste 5% de plafon și de ce (au încăput într-un cache), iar
    pe un GPU, ce puncte s-au măsurat cu ceasul de perete. Nu tipărește nimic altfel."""
    peste_plafon = [grafice.format_octeti(o) for o, g in zip(dimensiuni_octeti, gbps_copiere)
                    if g > 1.05 * plafon.gbps and o < plafon.octeti_copiati]
    if peste_plafon:
        unde = "cache-ul L2 al GPU-ului, mai rapid" if are_gpu else "cache-urile procesorului, mai rapide"
        print(f"Pe mașina ta, copierea trece peste plafon la {', '.join(peste_plafon)}: acolo tensorii încap în {unde} "
              f"decât memoria; plafonul s-a măsurat pe un tensor mai mare, de {grafice.format_octeti(plafon.octeti_copiati)}.")
    if are_gpu:
        pe_perete = [grafice.format_octeti(o) for o, c in zip(dimensiuni_octeti, ceasuri) if c == "perete"]
        if pe_perete:
            print("Măsurate cu ceasul de perete (acolo GPU-ul așteaptă procesorul o parte din timp: apelurile sunt limitate de procesor sau echilibrate, iar cifrele lor depind și de procesorul mașinii):",
                  ", ".join(pe_perete))


def grafic_punct_pe_curba(
    dimensiuni_octeti: Sequence[int],
    gbps_copiere: Sequence[float],
    plafon_gbps: float,
    octeti: int,
    latime: float,
    timp_s: float,
    operatie: str,
):
    """Curba copierii și plafonul, cu un singur punct în plus: operația `operatie`, pe un tensor
    de `octeti` octeți, care a durat `timp_s` secunde și a atins `latime` GB/s. Întoarce axa."""
    _, ax = plt.subplots(figsize=(7, 4))
    grafice.grafic_dimensiuni(
        dimensiuni_octeti, {"copiere (curba de mai sus)": gbps_copiere},
        marime="lățime de bandă (GB/s)", plafon=plafon_gbps, ax=ax,
    )
    ax.plot([octeti], [latime], marker="*", markersize=18, color="tab:red", linestyle="none", label=operatie)
    ax.legend()
    ax.set_title(f"{operatie}, {grafice.format_octeti(octeti)}: {cifre.format_timp(timp_s)}, {cifre.cu_unitate(latime, 'GB/s')}")
    return ax
