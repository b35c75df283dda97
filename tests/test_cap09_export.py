"""Programul C++ al capitolului 09: formatul binar dintre Python și C++, standardul C++ ales după
torch-ul instalat, apoi drumul întreg pe procesor: un model exportat, compilat în avans cu
AOTInductor într-un pachet `.pt2`, încărcat de programul C++ (construit cu g++ pe antetele lui
torch) într-un proces nou, dă aceeași ieșire ca modelul în Python."""

import re

import pytest
import torch
import torch.nn as nn

from curs_compilare.capitole import cap09_export as export09


def test_formatul_binar_dus_intors(tmp_path):
    for tensor in (torch.randn(3, 5), torch.arange(24, dtype=torch.float64).reshape(2, 3, 4), torch.randn(7)):
        export09.scrie_tensor(tmp_path / "t.bin", tensor)
        torch.testing.assert_close(export09.citeste_tensor(tmp_path / "t.bin"), tensor.float())
    (tmp_path / "scurt.bin").write_bytes((tmp_path / "t.bin").read_bytes()[:-4])
    with pytest.raises(ValueError, match="octeți"):
        export09.citeste_tensor(tmp_path / "scurt.bin")


def test_standardul_cpp_e_al_torchului_instalat():
    an = int(re.search(r"C\+\+ Version:\s*(\d{4})", torch.__config__.show()).group(1))
    assert export09.standard_cpp() == ("c++20" if an >= 2020 else "c++17")
    comanda = export09.comanda_de_compilare(export09.SURSA_INCARCATOR, export09.SURSA_INCARCATOR.with_suffix(""), "g++")
    assert f"-std={export09.standard_cpp()}" in comanda and "-ltorch" in comanda
    assert export09.SURSA_INCARCATOR.is_file()


def test_fara_compilator_o_eroare_in_romana(tmp_path, monkeypatch):
    monkeypatch.setattr(export09, "compilator_cpp", lambda: None)
    with pytest.raises(export09.EroareCpp, match="compilator C\\+\\+"):
        export09.construieste_incarcatorul(tmp_path)


class _Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 32), nn.Linear(32, 4)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def test_pachetul_aoti_incarcat_din_cpp_da_ce_da_python(tmp_path):
    if export09.compilator_cpp() is None:
        pytest.skip("fără compilator C++")
    executabil = export09.construieste_incarcatorul(tmp_path / "cpp")
    torch.manual_seed(0)
    model = _Model().eval()
    program = torch.export.export(model, (torch.randn(4, 16),), dynamic_shapes={"x": {0: torch.export.Dim.AUTO}})
    pachet = torch._inductor.aoti_compile_and_package(program, package_path=str(tmp_path / "model.pt2"))
    for lot in (3, 9):
        x = torch.randn(lot, 16)
        rulare = export09.ruleaza_incarcatorul(executabil, pachet, x)
        assert rulare.dispozitiv == "cpu" and rulare.timp_apel_s > 0
        with torch.no_grad():
            torch.testing.assert_close(rulare.iesire, model(x))
    with pytest.raises(export09.EroareCpp, match="codul"):
        export09.ruleaza_incarcatorul(executabil, tmp_path / "nu_exista.pt2", x)


# --- ce refuză exportul ------------------------------------------------------------------------


class _Ramura(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class _RamuraCond(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))


class _Zlib(nn.Module):
    def forward(self, x):
        import zlib

        return x * (zlib.crc32(b"eticheta") % 3)


class _LotFixat(nn.Module):
    def forward(self, x):
        return x.reshape(4, -1)


def test_exportul_refuzat_pe_categorii_pe_versiunea_instalata():
    x = torch.randn(4, 8)
    for strict in (True, False):
        refuz = export09.incearca_exportul(_Ramura(), (x,), strict=strict)
        assert not refuz.reusit and refuz.categorie == "ramificare după date", refuz
        assert "torch.cond" in refuz.explicatie and refuz.original
    cu_cond = export09.incearca_exportul(_RamuraCond(), (x,))
    assert cu_cond.reusit
    torch.testing.assert_close(cu_cond.program.module()(x), _Ramura()(x))
    # Un apel într-o bibliotecă C: refuzat doar la exportul strict (măsurat pe 2.13.0 și 2.14.1).
    assert export09.incearca_exportul(_Zlib(), (x,), strict=True).categorie == "apel pe care Dynamo nu-l urmărește"
    assert export09.incearca_exportul(_Zlib(), (x,), strict=False).reusit
    lot = torch.export.Dim("lot", min=2, max=64)
    fixat = export09.incearca_exportul(_LotFixat(), (x,), dynamic_shapes={"x": {0: lot}})
    assert fixat.categorie == "dimensiune fixată de cod" and "Constraints violated" in fixat.original
    assert "Traceback" not in (fixat.explicatie + fixat.original)


def test_intervalul_declarat_al_unei_dimensiuni():
    """`Dim(min=2, max=64)`: un lot peste maxim e refuzat la rulare; unul sub minim (1) rulează
    (pe 2.13.0 și 2.14.1): minimul e o presupunere a exportului, nu o verificare la rulare."""
    lot = torch.export.Dim("lot", min=2, max=64)
    program = export09.incearca_exportul(_Model(), (torch.randn(4, 16),), dynamic_shapes={"x": {0: lot}}).program
    assert "VR[2, 64]" in str(program.range_constraints)
    modul = program.module()
    modul(torch.randn(64, 16))
    with pytest.raises(Exception, match="<= 64"):
        modul(torch.randn(65, 16))
    assert modul(torch.randn(1, 16)).shape == (1, 4)
