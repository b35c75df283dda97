"""Concluziile tipărite din măsurători: o propoziție care urmează din propriile cifre.

O concluzie scrisă dinainte („compilatul e mai rapid”) poate fi contrazisă chiar de cifrele de
lângă ea: pe un procesor, pe tensori mici, varianta compilată iese uneori mai lentă. Aici
propoziția se alege după măsurătoare:

- rapoartele rundelor îl încadrează pe 1 (sau mediana lor se abate de la el cu cel mult 3%):
  „la fel, în limita zgomotului”;
- raportul e peste 1: „de X ori mai rapid”;
- raportul e sub 1: „mai lent”, cu o cauză probabilă pentru mașina ta.

`contradictii(text)` caută în textul tipărit de un notebook propozițiile care se contrazic
singure („de 0,94 ori mai rapid”); testele o aplică ieșirii fiecărei celule.
"""

from __future__ import annotations

import re

from .cifre import cu_substantiv, cu_unitate, format_numar
from .masurare import Raport
from .mediu import profil_curent

__all__ = ["concluzie_accelerare", "cauza_lentorii", "contradictii", "text_iesiri"]


def cauza_lentorii(raport: Raport | None = None, pe_gpu: bool | None = None) -> str:
    """Cauza probabilă, pe mașina ta, pentru care o variantă compilată iese mai lentă."""
    import torch

    if pe_gpu is None:
        pe_gpu = torch.cuda.is_available()
    if profil_curent() == "rapid":
        return (
            "în profilul rapid (cel al testelor), dimensiunile sunt minuscule, iar costul fix al unui "
            "apel compilat (gărzile lui Dynamo, învelișul Python al codului generat) cântărește mai mult "
            "decât ce câștigă fuziunea"
        )
    if not pe_gpu:
        return (
            "pe procesor, Inductor generează C++, iar operațiile eager ale PyTorch sunt deja vectorizate "
            "și împărțite pe nuclee; la dimensiuni mici, costul fix al apelului compilat (gărzile, "
            "învelișul codului generat) cântărește mai mult decât câștigul"
        )
    if raport is not None and raport.depinde_de_procesor:
        return (
            "apelul e limitat de procesor: gărzile și învelișul codului compilat costă mai mult decât "
            "lansările pe care le economisește fuziunea"
        )
    return "pe GPU-ul tău, la această formă, codul generat e mai lent decât kernel-urile bibliotecii"


def concluzie_accelerare(
    raport: Raport,
    subiect: str = "Varianta compilată",
    referinta: str = "cea eager",
    feminin: bool = True,
    cauza: str | None = None,
) -> str:
    """Propoziția care urmează dintr-un raport de timpi `referinta / subiect` (de câte ori e
    mai rapid `subiect`): în zgomot, mai rapid sau mai lent (cu cauza probabilă). Propoziția
    începe cu `subiect`, scris cum e dat (cu majusculă, dacă e începutul frazei); `feminin`
    acordă adjectivele cu el."""
    rapid = "rapidă" if feminin else "rapid"
    lent = "lentă" if feminin else "lent"
    if raport.in_zgomot:
        return (
            f"{subiect} și {referinta} durează practic la fel: raportul lor, {cu_unitate(raport.mediana, '×')}, "
            f"e în limita zgomotului măsurătorii ({raport.interval()})."
        )
    if raport.mediana > 1:
        return f"{subiect} e de {_ori(raport.mediana)} mai {rapid} decât {referinta} ({raport.interval()})."
    motiv = cauza or cauza_lentorii(raport)
    return (
        f"{subiect} e mai {lent} decât {referinta}: {cu_unitate(raport.mediana, '×')} ({raport.interval()}), "
        f"adică durează de {_ori(1 / raport.mediana)} mai mult. Cauza probabilă, pe mașina ta: {motiv}."
    )


def _ori(factor: float) -> str:
    """„2,5 ori”, „25 de ori”: factorul, rotunjit cum se scrie, urmat de „ori” (cu „de” unde
    îl cere româna)."""
    rotunjit = float(format_numar(factor).replace(" ", "").replace(",", "."))
    return cu_substantiv(rotunjit, "dată", "ori")


_NUMAR = r"(\d+(?:[.,]\d+)?)"
_COMPARATIV = r"mai\s+(?:rapid|lent|mult|mar|lung|scurt)\w*"
_TIPARE_CONTRADICTII = (
    # „de 0,94 ori mai rapid”: un factor „de X ori mai ...” are sens doar pentru X > 1
    re.compile(rf"de\s+{_NUMAR}\s+(?:de\s+)?ori\s+{_COMPARATIV}"),
    # „0,9× mai rapid”
    re.compile(rf"{_NUMAR}\s*×\s+{_COMPARATIV}"),
)


def contradictii(text: str) -> list[str]:
    """Fragmentele din `text` care se contrazic singure: un factor „de X ori mai …” sau
    „X× mai …” cu X ≤ 1 (de exemplu „de 0,94 ori mai rapid”)."""
    gasite = []
    for tipar in _TIPARE_CONTRADICTII:
        for potrivire in tipar.finditer(text):
            valoare = float(potrivire.group(1).replace(",", "."))
            if valoare <= 1:
                gasite.append(potrivire.group(0))
    return gasite


def text_iesiri(iesiri, doar_stdout: bool = False) -> str:
    """Textul tipărit în ieșirile unei celule de notebook (fluxurile și rezultatele text). Cu
    `doar_stdout=True`, fără fluxul de erori (stderr): acolo scriu PyTorch și bibliotecile lui
    (avertismente, tabelul reglării automate), în formatul lor, nu textul cursului."""
    bucati = []
    for iesire in iesiri or []:
        if iesire.get("output_type") == "stream":
            if doar_stdout and iesire.get("name") == "stderr":
                continue
            bucati.append(iesire.get("text", ""))
        elif "data" in iesire:
            bucati.append(iesire["data"].get("text/plain", ""))
    return "\n".join(bucati)
